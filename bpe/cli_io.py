"""The command line's inputs and output (:mod:`bpe.cli`): standard input, text files, token ids typed as
words, a tokenizer named by path or pretrained name, saving one; each failure a one-line :class:`CliError`
with its exit code."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import BinaryIO, Sequence

from .cli_args import BAD_INPUT, CANNOT_WRITE, NOT_FOUND, CliError
from .formats import save
from .loading import load
from .pretrained import PRETRAINED, PretrainedError, is_installed, load_pretrained, resolve_name
from .tokenizer import Tokenizer
from .userfiles import NotARegularFile, read_regular_file

__all__ = ["read_stdin", "save_to", "read_text_file", "decode_utf8", "load_tokenizer", "parse_ids", "write_out"]


def read_stdin(what: str = "the text") -> bytes:
    """All of standard input, or :class:`CliError` when there is none to read (closed: ``<&-``)."""
    if sys.stdin is None:  # Python's stdin is None when file descriptor 0 is closed
        raise CliError(
            f"standard input is closed: nothing to read {what} from (pipe it in, or give it as an argument or a file)",
            NOT_FOUND,
        )
    try:
        return sys.stdin.buffer.read()
    except (OSError, ValueError) as exc:  # a closed or unreadable descriptor
        raise CliError(
            f"cannot read {what} from standard input: {getattr(exc, 'strerror', None) or exc}", NOT_FOUND
        ) from None


def save_to(tok: Tokenizer, out: str, fmt: str) -> list[Path]:
    """:func:`bpe.formats.save`, with a one-line :class:`CliError` when ``out`` cannot be written."""
    try:
        return save(tok, out, format=fmt)
    except OSError as exc:
        why = exc.strerror or str(exc)
        if isinstance(exc, (FileExistsError, NotADirectoryError)):
            why = "a file stands where a folder is needed"
        where = f" ({exc.filename})" if exc.filename and str(exc.filename) != out else ""
        raise CliError(f"--out {out}: cannot write there: {why}{where}", CANNOT_WRITE) from None


def read_text_file(name: str) -> str:
    """A text file's contents (``-``: standard input), UTF-8; :class:`CliError` when it cannot be read."""
    if name == "-":
        data = read_stdin()
        label = "stdin"
    else:
        path = Path(name)
        if not path.exists():
            raise CliError(f"{name}: no such file", NOT_FOUND)
        if path.is_dir():
            raise CliError(f"{name} is a folder; give text files", BAD_INPUT)
        try:
            data = read_regular_file(path)  # a device, FIFO or socket (a link to /dev/zero) is refused unread
        except NotARegularFile as exc:
            raise CliError(f"{exc}; give text files", BAD_INPUT) from None
        except OSError as exc:
            raise CliError(f"{name}: cannot read: {exc.strerror or exc}", NOT_FOUND) from None
        label = name
    return decode_utf8(data, label)


def decode_utf8(data: bytes, label: str) -> str:
    """``data`` as UTF-8 text; :class:`CliError` naming ``label`` and the first bad byte when it is not."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CliError(
            f"{label} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "convert it first, e.g. with iconv",
            BAD_INPUT,
        ) from None


def load_tokenizer(spec: str) -> Tokenizer:
    """A tokenizer from a path or a pretrained name (or alias), with CLI-friendly errors."""
    if Path(spec).exists():
        return load(spec)
    name = resolve_name(spec)
    if name is None:
        raise CliError(
            f"tokenizer {spec!r} not found: give a folder saved by `train`, a tokenizer.json, a "
            f".tiktoken file, or one of {', '.join(PRETRAINED)} (see: python -m bpe list)",
            NOT_FOUND,
        )
    if not is_installed(name):
        try:
            load_pretrained(name)  # raises the message that names the install command
        except PretrainedError as exc:
            raise CliError(str(exc), NOT_FOUND) from None
    return load_pretrained(name)


def parse_ids(words: Sequence[str]) -> list[int]:
    """Token ids typed as words (``1 2``, ``1,2``, ``[1, 2]``); :class:`CliError` for anything else."""
    ids = []
    for word in words:
        for piece in re.split(r"[\s,\[\]]+", word):
            if not piece:
                continue
            if not re.fullmatch(r"[0-9]+", piece):
                raise CliError(f"{piece[:40]!r} is not a token id (ids are whole numbers >= 0)", BAD_INPUT)
            if len(piece) > 18:  # int() of a 5,000-digit string raises; no vocabulary has such an id
                raise CliError(
                    f"{piece[:20]}... ({len(piece):,} digits) is not a token id of any vocabulary", BAD_INPUT
                )
            ids.append(int(piece))
    return ids


# --- output ---------------------------------------------------------------------------------------
def write_out(stream: BinaryIO, text: str) -> None:
    """``text`` to a binary stream as UTF-8, flushed."""
    stream.write(text.encode("utf-8"))
    stream.flush()
