"""BPE Lab's library: byte pair encoding you can step through. Its only dependency is ``regex``.

>>> import bpe
>>> run = bpe.train("aaabdaaabac", 258, pattern=None)
>>> [run.token(m.id) for m in run.merges]
[b'aa', b'ab']
>>> tok = run.tokenizer()
>>> tok.decode(tok.encode("aaabdaaabac"))
'aaabdaaabac'

Modules, in layers: each imports only modules above it (``lint-imports`` checks there is no cycle, ruff's
PLC0415 that no import hides in a function; only the CLI imports ``tqdm``, in a function, as an optional
dependency).

1. :mod:`bpe.visible` -- bytes <-> GPT-2's visible characters, Unicode normalization, tokens that split a
   character (:func:`~bpe.visible.char_groups`); :mod:`bpe.excerpt` -- cutting a long text where a reader
   expects it (its start, its held-out end); :mod:`bpe.pattern_registry` -- the pre-tokenizer regexes and
   their branches' notes and kinds, as data; :mod:`bpe.regex_syntax` -- reading regex source (character
   classes, top-level branches); :mod:`bpe.deadline` -- one request's time limit (:class:`Deadline`) and the
   pattern runner custom regexes go through (:func:`set_pattern_runner`: in this process by default; the
   library starts no thread or process); :mod:`bpe.userfiles` -- reading a file a user names (regular files
   only: a device, FIFO or socket is refused before reading).
2. :mod:`bpe.patterns` -- pre-tokenizers: :class:`Pattern`, the compiled registry, :func:`get_pattern`;
   :mod:`bpe.splitting` -- cutting text with one: :func:`split` (chunks with spans and branches) and
   :func:`pretokenize` (chunk texts only), one deadline a request, custom patterns through the runner.
3. :mod:`bpe.corpus` -- training data -> weighted unique chunks of base ids (and the base a run starts from,
   :func:`base_vocab_size`).
4. :mod:`bpe.merging` -- the merge rules inside one chunk (one heap for long chunks) and traces;
   :mod:`bpe.backends` -- how the trainer stores and rewrites the corpus, and :mod:`bpe.train_loop` -- the
   incremental loop over one (counts, the window of best pairs, the heap; :mod:`bpe.chunk_steps` -- its
   common case in one generator frame); :mod:`bpe.special_tokens` --
   tiktoken's rules for special-token strings in a text; :mod:`bpe.chunk_cache` -- each chunk's ids,
   remembered.
5. :mod:`bpe.streaming` -- where a growing text can be cut (streaming encode); :mod:`bpe.encoding_api` --
   tiktoken's ``Encoding`` methods, a mixin of :class:`Tokenizer`; :mod:`bpe.tokenizer` -- :class:`Tokenizer`:
   its named constructors, encode (the tables they fill in :mod:`bpe.tokenizer_tables`; a token's
   bytes and text, and decoding, in :mod:`bpe.token_lookup`; pieces and trace in :mod:`bpe.encoding_trace`,
   a mixin); :mod:`bpe.merge_recovery` -- the
   pair that makes each token, also for a ranks (tiktoken) vocabulary.
6. :mod:`bpe.run` -- the immutable :class:`Run` and :class:`Merge` records (``Run.tokenizer()``).
7. :mod:`bpe.trainer` -- :func:`train`, :class:`MergeStream`; :mod:`bpe.reference` -- the naive loop,
   our oracle; :mod:`bpe.replay` -- a run replayed on a text at any merge step.
8. :mod:`bpe.formats` -- tokenizer files (one module per format, in memory and on disk; the package's
   docstring lists them).
9. :mod:`bpe.pretrained` -- the real vocabularies (GPT-2/3, GPT-4, GPT-4o, Llama 3/4, Qwen, DeepSeek-V3, tekken),
   offline, from the entries of :mod:`bpe.pretrained_registry` (pure data; their special tokens in
   :mod:`bpe.pretrained_specials`); :mod:`bpe.token_tax` -- one content in many languages, token counts compared;
   :mod:`bpe.vocab_replay` -- a real vocabulary's merges replayed on a text (its records and one chunk's
   merges in :mod:`bpe.replay_steps`).
10. :mod:`bpe.loading` -- :func:`load` / :func:`loads`: by path, name or file contents; :mod:`bpe.encodings`
    -- tiktoken's :func:`get_encoding`, :func:`encoding_for_model`...; :mod:`bpe.tiktoken` -- tiktoken's
    import surface (``import bpe.tiktoken as tiktoken``). :mod:`bpe.compare` -- :func:`compare`: where two
    merge lists part and why (the sides read by :mod:`bpe.compare_inputs`, the mistakes retrained by
    :mod:`bpe.compare_train`, named from :mod:`bpe.compare_causes`).
11. :mod:`bpe.terminal` (colored tokens for a terminal) and :mod:`bpe.cli` (``python -m bpe``, its arguments
    in :mod:`bpe.cli_args`, its inputs and output in :mod:`bpe.cli_io`).
"""

from .compare import Comparison, compare
from .compare_inputs import CompareInputError
from .corpus import MAX_VOCAB_SIZE, TrainingDataError, base_vocab_size
from .deadline import Deadline, set_pattern_runner
from .encoding_api import UnknownTokenError
from .encodings import encoding_for_model, encoding_name_for_model, get_encoding, list_encoding_names
from .formats import FORMATS, FormatError, UnsupportedFormatError, dumps, save, zip_files
from .loading import load, loads
from .merge_recovery import recover_merges
from .merging import TraceStep
from .patterns import PATTERNS, Pattern, PatternError, PatternTimeout, get_pattern
from .pretrained import PRETRAINED, PretrainedError, is_installed, load_pretrained, pretrained_status
from .reference import train_reference
from .run import Merge, Run
from .special_tokens import DisallowedSpecialError
from .splitting import Chunk, SplitResult, pretokenize, split
from .token_tax import ParallelCorpus, ParallelText, TokenTax, load_parallel, token_tax
from .tokenizer import Tokenizer, UnknownCharacterError
from .trainer import TIE_BREAKS, MergeStream, train
from .visible import from_visible, normalize_text, to_visible
from .vocab_replay import VocabReplay
from .vocab_replay import replay as replay_vocabulary

__all__ = [
    "train",
    "train_reference",
    "Run",
    "Merge",
    "MergeStream",
    "TIE_BREAKS",
    "Tokenizer",
    "TraceStep",
    "PATTERNS",
    "Pattern",
    "Chunk",
    "SplitResult",
    "get_pattern",
    "split",
    "pretokenize",
    "to_visible",
    "from_visible",
    "normalize_text",
    "Deadline",
    "set_pattern_runner",
    "PatternError",
    "PatternTimeout",
    "TrainingDataError",
    "DisallowedSpecialError",
    "UnknownCharacterError",
    "MAX_VOCAB_SIZE",
    "base_vocab_size",
    "load_pretrained",
    "PRETRAINED",
    "PretrainedError",
    "is_installed",
    "pretrained_status",
    "token_tax",
    "TokenTax",
    "ParallelText",
    "ParallelCorpus",
    "load_parallel",
    "replay_vocabulary",
    "VocabReplay",
    "recover_merges",
    "compare",
    "Comparison",
    "CompareInputError",
    "load",
    "loads",
    "save",
    "dumps",
    "zip_files",
    "FORMATS",
    "FormatError",
    "UnsupportedFormatError",
    "get_encoding",
    "list_encoding_names",
    "encoding_for_model",
    "encoding_name_for_model",
    "UnknownTokenError",
]
