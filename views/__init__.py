"""Views: pure functions from library objects to HTML strings, plotly figures and data frames.

Nothing here touches Streamlit (``lint-imports`` checks it: .importlinter), so every view can be called and
checked in a unit test. By job:

* shared drawing: :mod:`views.theme` (palettes, stable colors), :mod:`views.spans` (a text as token spans),
  :mod:`views.notes` (the notes box), :mod:`views.presenter` (projector styling for every page);
* merge player: :mod:`views.player` (words, tables, trees), :mod:`views.player_settings` (its settings in
  words), :mod:`views.player_payload` (what the player
  component draws, once per run and per text window), :mod:`views.replay`; the quiz it shares with the
  Classroom: :mod:`views.quiz` (links are read and written in :mod:`appstate.links`);
* Tokenize: :mod:`views.text_input` (pasted text made safe to encode), :mod:`views.encoded` (one text
  encoded and measured), :mod:`views.token_boxes` (ids as colored boxes, the page's stylesheet),
  :mod:`views.encoding_stats` (metrics in words, the comparison chart and table), :mod:`views.trace` (one
  chunk merge by merge);
* Pre-tokenizer lab: :mod:`views.lab_measure` (the comparison rows; the statistics are :mod:`bpe.split_stats`), :mod:`views.lab`
  (colors, chunks, legend, table);
* Classroom: :mod:`views.lessons` (the lessons, one module each, on :mod:`views.lessons.model`),
  :mod:`views.compression_chart`.
"""
