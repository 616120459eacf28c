"""What the tests and the benchmarks share (tests import it, never ``bench``; ``bench`` imports it too):

* :mod:`testkit.app_server` -- ``streamlit run app.py`` on a loopback port, the Chromium that drives it, and
  readings of a process from ``/proc`` (its children, CPU seconds, RSS);
* :mod:`testkit.fresh_page` -- one fresh page of the app in a new browser context: bytes on the wire, time;
* :mod:`testkit.references` -- the independent tools we check ourselves against: each open model's own
  tokenizer, Hugging Face ``tokenizers``' and rustbpe's trainers;
* :mod:`testkit.corpora` -- real corpora built offline from Debian packages and the standard library (on
  :mod:`testkit.debian`, :mod:`testkit.multilingual_sources`, and :mod:`testkit.rdata` /
  :mod:`testkit.rvalues`, a pure-Python reader of R's data files); cached in ``testkit/data/``;
* :mod:`testkit.texts` -- test texts made from the repository's sample texts;
* :mod:`testkit.hf_json` -- a minimal Hugging Face ``tokenizer.json`` around a given pre-tokenizer, normalizer
  or decoder (issue 32's hostile files).
"""
