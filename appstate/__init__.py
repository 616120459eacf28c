"""App state: what the pages share, one module per job. Streamlit lives here and in the pages, never below.

* :mod:`appstate.keys` -- every session-state key two files share, defined once (and the shared sidebar's
  :func:`~appstate.keys.palette` and :func:`~appstate.keys.presenting`);
* :mod:`appstate.sources` -- the samples, training texts from a paste or an upload, and the limits;
* :mod:`appstate.runs` -- trained runs in one bounded cache shared by every session
  (:func:`~appstate.runs.get_run`);
* :mod:`appstate.caches` -- what the player derives from a run (replays, payloads, exports), cached;
* :mod:`appstate.player_state` -- the merge player's session: defaults, settings, the run it shows;
  :mod:`appstate.replay_state` -- its second mode, a real vocabulary replayed on a text (cached);
* :mod:`appstate.vocabs` -- the tokenizers the Tokenize, lab and Token tax pages offer (registry, trained,
  uploaded), with bounded memory;
* :mod:`appstate.links` -- each page's link, read once per session and written back on every run; parsing in
  :mod:`appstate.query` (any parameter) and :mod:`appstate.player_link` (the player's), pure functions;
* :mod:`appstate.tokenize_state` -- the Tokenize page's columns, this session's uploads, its encodings (cached);
* :mod:`appstate.widgets` -- widgets two pages draw alike: the preset picker and text box (Tokenize, lab), the
  player's "Explain a token" box and share link (both modes);
* :mod:`appstate.pageguard` -- a page's exception becomes a short message, never a traceback.

Live rooms are a package of their own above this one, :mod:`liveroom` (their store, a session's side, the
route students long-poll).

Imports go one way: pages -> ``appstate`` -> ``views`` -> ``bpe``; beside the library, ``guard`` (worker
processes), which this package plugs in when it is first imported: every page imports it.
"""

import guard

# The app's policy, not the library's: a custom regex (typed, in a link, in an uploaded tokenizer.json) runs
# in a worker process killed at its deadline, never in the server's interpreter (the library's default).
guard.install()
