"""Every session-state key more than one file reads or writes, defined once.

A page's private keys (its widgets, its own flags) are defined once at the top of that page; a key two
files share lives here, with what it holds. Two small readers of the shared sidebar's keys
(:func:`palette`, :func:`presenting`) save every page from spelling the key and its default.

>>> PRESENTER, PALETTE, QUIZ_RESULTS
('presenter', 'palette', 'quiz_results')
"""

from __future__ import annotations

import streamlit as st

# ----------------------------------------------------------------------------------------------------
# The shared sidebar (app.py): read from the link once per session, written back to it on every run

PRESENTER = "presenter"  # bool: presenter view (large type, high contrast, sidebar collapsed)
PALETTE = "palette"  # "default" | "okabe_ito": token and chart colors
APP_URL_READ = "_app_url_read"  # the link's presenter/palette have been read (once per session)
#: list[str]: what was wrong with the link's presenter/palette. The player and the classroom take them over
#: (:func:`appstate.links.read_link_once`) and show them with their own; on other pages app.py shows them
#: until the page changes.
APP_NOTES = "_app_notes"
APP_NOTES_PAGE = "_app_notes_page"  # the page the notes were shown on (another page: they are dropped)
APP_WAS_PRESENTING = "_app_was_presenting"  # presenter view was on at the last run (to reopen the sidebar)
APP_FIRST_RUN = "_app_first_run"  # True in a session's first run only (a fresh page): a page may draw less then

#: {quiz id: right?}: the "predict the next merge" answers of this session, scored by the player and the
#: classroom together.
QUIZ_RESULTS = "quiz_results"

#: the Classroom's lesson and step shown (1-based): the page's, and a live room's (a following student goes
#: where the teacher is, :mod:`liveroom.student`)
CLASSROOM_LESSON = "classroom_lesson"
CLASSROOM_STEP = "classroom_step"

# ----------------------------------------------------------------------------------------------------
# The Tokenize page's columns, kept by :mod:`appstate.tokenize_state` (the page's widget keys are at its top)

TOK_CHOICE = "tok_choice"  # the tokenizers shown (the picker): "trained", registry names, "upload:<digest>"
TOK_TEXT = "tok_text"  # the Tokenize page's text (the view's box shows it; survives page switches)
TOK_TEXT_SEQ = "_tok_text_seq"  # raised when Python replaces the text (preset, cut): the view shows the new one
TOK_VIEW = "tok_view"  # the Tokenize view's reports (its mailbox's state): {"edit": {...}, "ask": {...}}
TOK_VIEW_FRAME = "tok_view_frame"  # the Tokenize view itself (text box and columns; no state)
TOK_PREVIEW = "tok_view_preview"  # a big paste's first screen, mailed before the whole text is encoded (no state)
TOK_VIEW_TEXT = "_tok_view_text"  # the text the view holds (its last edit, or the last text sent to it)
TOK_VIEW_TID = "_tok_view_tid"  # which text that is: "<seq>:<n>"
TOK_PUSHED = "_tok_pushed"  # the text last pushed to the view (with TOK_TEXT_SEQ): the view's settings
TOK_SENT = "_tok_sent"  # {column key: [tokenize_live.Entry]}: the versions the browser was sent
TOK_ASKED = "_tok_asked"  # the last click ("ask") answered
TOK_NOTE = "_tok_note"  # a note about the text (cut to the limit), shown once
TOK_LIVE = "_tok_live"  # {column key: views.live_column.LiveColumn}: each column kept up to date edit by edit
TOK_TOUCHED = "_tok_touched"  # the text was edited, restored or replaced in this session (else: a fresh session)
TOK_RESYNC = "_tok_resync"  # an edit did not apply to the server's text: the view is asked for the whole text
TOK_RESTORED = "_tok_restored"  # the browser restored its saved text and settings: the whole page runs again
TOK_KEEP = "_tok_keep"  # {widget key: type name}: the settings a browser may restore after a reload
#: a fresh page's first run drew the text box and columns only: the view's "drawn" report brings the rest
TOK_FIRST_SCREEN = "_tok_first_screen"
#: the start of the text the trace section ("Watch a chunk...", drawn by a full run) was drawn for (a digest);
#: an edit reruns only the view's fragment, so after typing it would still offer the old text's chunks (issue 14)
TOK_TRACE_FOR = "_tok_trace_for"
TOK_UPLOADS = "tok_uploads"  # [{"digest", "label"}]: this session's uploaded tokenizers (newest last)

# ----------------------------------------------------------------------------------------------------
# The merge player. Share links and the quiz read and write them; the Tokenize, Token tax and Pre-tokenizer
# pages read the player's run through :func:`appstate.player_state.player_run`. Widget keys the tests rely
# on: play, step, back, reset, speed, jump, step_status.

PLAYER_RUN = "player_run_key"  # (text_key, TrainSettings) of the run on the player
PLAYER_TEXT = "player_text"  # the player's whole text (to retrain if the cache evicted the run)
PLAYER_TEXT_END = "_player_text_end"  # where its held-out part starts: it trained on text[:end]
PLAYER_STEP = "player_step"  # the merge index the player shows (0..len(merges))
PLAYER_SOURCE = "player_source"  # "sample" | "paste" | "upload"
PLAYER_SAMPLE = "player_sample"  # a sample's key (file stem)
PLAYER_PASTE = "player_paste"  # the pasted text
PLAYER_UPLOAD = "player_upload"  # the file uploader
PLAYER_UPLOAD_TEXT = "player_upload_text"  # the last upload, read: appstate.sources.read_upload's dict
PLAYER_UPLOAD_TRUNCATE = "player_upload_truncate"  # train on the first MAX_TRAIN_BYTES of a big file
PLAYER_MERGES = "player_merges"  # merges to learn (vocabulary = base + merges + specials)
PLAYER_PATTERN = "player_pattern"  # registry name, "none" or "custom"
PLAYER_CUSTOM_PATTERN = "player_custom_pattern"
PLAYER_LEVEL = "player_level"  # "byte" | "char"
PLAYER_TIE_BREAK = "player_tie_break"  # "lexical" | "first" | "hf" | "max_bytes"
PLAYER_NFC = "player_nfc"  # bool
PLAYER_COVERAGE = "player_coverage"  # SentencePiece-style: character coverage (a float of COVERAGES)
PLAYER_SPECIALS = "player_specials"  # special tokens, separated by spaces or commas
PLAYER_SPEED = "speed"  # merges per second (the browser plays; a link carries it)
PLAYER_WINDOW = "player_window"  # first character of the text window shown
PLAYER_TREE_QUERY = "player_tree_query"  # the token whose merge tree is shown ("" = the newest)
PLAYER_METRIC = "player_metric"  # compression chart: "bytes_per_token" | "tokens"
PLAYER_SEEK = "player_seek"  # raised when Python moves the player (a link, a quiz answer)
PLAYER_URL_READ = "_player_url_read"  # the player's link has been read (once per session)
PLAYER_LINK_STEP = "_player_url_step"  # a link's merge, applied once its run is trained
PLAYER_NOTES = "_player_notes"  # what was wrong with the link (shown until the user moves on)
MERGE_PLAYER = "merge_player"  # the merge player component (its ``view`` report)

# The player's second mode, replaying a real vocabulary (:mod:`appstate.replay_state`): keys of its own, so
# the other pages' "trained tokenizer" does not follow a replay.
PLAYER_MODE = "player_mode"  # "train" | "replay"
PLAYER_VOCAB = "player_vocab"  # the registry vocabulary replayed (bpe.PRETRAINED key), or "upload"
REPLAY_UPLOAD = "player_replay_upload"  # the file uploader of a tokenizer.json to replay
REPLAY_UPLOADED = "player_replay_uploaded"  # {"digest", "label"} of the uploaded tokenizer replayed (or absent)
REPLAY_UPLOAD_ERROR = "_player_replay_upload_error"  # why the last upload could not be read ("" when it could)
REPLAY_CUT = "player_replay_cut"  # replay the first MAX_REPLAY_BYTES of a longer text
REPLAY_STEP = "player_replay_step"  # the step the player shows in a replay
REPLAY_WINDOW = "player_replay_window"  # first character of the text window shown
REPLAY_QUERY = "player_replay_query"  # the token whose build is explained ("" = the newest)
REPLAY_SHOWN = "_player_replay_shown"  # (replay id, tag) on the player

# ----------------------------------------------------------------------------------------------------
# The Compare page (/compare): its widgets, read by :mod:`appstate.compare_state` and its share link

CMP_PRESET = "cmp_preset"  # the reference A: a compare_state.PRESETS key ("player": the player's settings)
CMP_SIDE = "cmp_side"  # B: "settings" (the same text, other settings) | "upload" (a merge list)
CMP_PATTERN = "cmp_pattern"  # B's pre-tokenizer: a registry name or "none"
CMP_TIE = "cmp_tie"  # B's tie rule (bpe.TIE_BREAKS)
CMP_LEVEL = "cmp_level"  # B: "byte" | "char" | "sentencepiece"
CMP_NFC = "cmp_nfc"  # B: NFC or not
CMP_MERGES = "cmp_merges"  # B's merges (its vocabulary size less base and specials)
CMP_MIN_FREQ = "cmp_min_freq"  # B's min_frequency
CMP_UPLOAD = "cmp_upload"  # B's uploaded files (merges.txt, tokenizer.json, a JSON list...)
CMP_K = "cmp_k"  # the merge both tokenizations are shown at
CMP_URL_READ = "_cmp_url_read"  # the link's comparison has been read (once per session)
CMP_NOTES = "_cmp_notes"  # what was wrong with the link

# ----------------------------------------------------------------------------------------------------
# Live rooms (:mod:`liveroom`: the session, teacher and student modules; the store): a teacher's session leads one,
# a student's joins one with ``?join=CODE``.

ROOM_LEAD = "_room_lead"  # (code, teacher's token): the room this session leads
ROOM_LEAD_SENT = "_room_lead_sent"  # (merge, playing) last written to the room
ROOM_LEAD_BEAT = "_room_lead_beat"  # when this session last told the store it is alive
ROOM_JOIN = "_room_join"  # the code of the room this session joined (a student)
ROOM_JOIN_READ = "_room_join_read"  # the link's join= has been read (once per session)
ROOM_STUDENT = "_room_student"  # this session's random id in rooms (no name)
ROOM_FOLLOW = "_room_follow"  # bool: the student's player follows the teacher
ROOM_FOLLOW_SEQ = "_room_follow_seq"  # raised on each rejoin: the player jumps to the teacher
ROOM_FOLLOW_SENT = "_room_follow_sent"  # (key, data) of the play state last handed to the player
ROOM_APPLIED = "_room_applied"  # the room's run settings this session last applied
ROOM_ANSWERS = "_room_answers"  # {poll id: option picked}
ROOM_NOTE = "_room_note"  # a message about the room for this session (plain text)
ROOM_JOIN_NOTE = "_room_join_note"  # why the link's join= could not join (plain text)
ROOM_COOKIES_READ = "_room_cookies_read"  # this browser's room cookies were read (once per session)
ROOM_COOKIES_SENT = "_room_cookies_sent"  # {cookie: value} this session last had the browser keep
ROOM_POLL_OPEN = "_room_poll_open"  # a room poll is open: the player hides its pair counts (the answer)
ROOM_LEAD_TEXT = "_room_lead_text"  # (code, digest) of the text last kept beside the room
ROOM_LEAD_SCREEN = "_room_lead_screen"  # what the teacher last showed the room: (lesson, step) or None
ROOM_PAGE = "_room_page"  # a student's page (url path) at its last full run
ROOM_DOWN = "_room_down"  # the rooms' store did not answer (Redis away): the sidebar says so
ROOM_DOWN_SHOWN = "_room_down_shown"  # the "unavailable" notice is drawn (until the store is back)
ROOM_GOING = "_room_going"  # the page a student's session was sent to, following the room
ROOM_CLOSED = "_room_closed"  # (code, its questions, when) of the room this teacher closed last


def palette() -> str:
    """The palette chosen in the shared sidebar (``"default"`` or ``"okabe_ito"``)."""
    return st.session_state.get(PALETTE, "default")


def presenting() -> bool:
    """Whether presenter view is on (the shared sidebar's toggle)."""
    return bool(st.session_state.get(PRESENTER, False))
