"""Reading a file a user names: regular files only, refused before reading otherwise.

``open(path).read()`` on a device, a FIFO or a socket never ends or blocks: a link named ``z.json`` that
points at ``/dev/zero`` reads zeros until memory runs out (issue 21: 3.5 GB after 7 s), a FIFO waits for a
writer forever. :func:`read_regular_file` looks at what the path is (following links) before it opens it,
opens it without blocking (a FIFO would block ``open`` itself), looks again at what it opened (the path may
have been swapped in between), and only then reads.

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "t.txt")
>>> _ = open(path, "w").write("hi")
>>> read_regular_file(path)
b'hi'
>>> read_regular_file("/dev/null")
Traceback (most recent call last):
...
bpe.userfiles.NotARegularFile: /dev/null is a character device, not a regular file: not read
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

__all__ = ["NotARegularFile", "read_regular_file", "kind_of"]


class NotARegularFile(ValueError):
    """The path names a device, a FIFO, a socket (or a folder) rather than a regular file; nothing was read."""


def kind_of(mode: int) -> str:
    """What a ``st_mode`` is, in words.

    >>> kind_of(os.stat("/dev/null").st_mode)
    'character device'
    """
    for test, word in (
        (stat.S_ISREG, "regular file"),
        (stat.S_ISDIR, "folder"),
        (stat.S_ISCHR, "character device"),
        (stat.S_ISBLK, "block device"),
        (stat.S_ISFIFO, "FIFO (named pipe)"),
        (stat.S_ISSOCK, "socket"),
    ):
        if test(mode):
            return word
    return "special file"


def _refuse(path: "str | Path", mode: int) -> NotARegularFile:
    return NotARegularFile(f"{path} is a {kind_of(mode)}, not a regular file: not read")


def read_regular_file(path: "str | Path") -> bytes:
    """The bytes of ``path`` if it is a regular file (a link to one is fine); :class:`NotARegularFile`
    for a device, FIFO, socket or folder, before any byte is read. ``OSError`` as ``open`` raises it (no such
    file, no permission)."""
    mode = os.stat(path).st_mode  # follows links: a link to /dev/zero is a character device
    if not stat.S_ISREG(mode):
        raise _refuse(path, mode)
    # O_NONBLOCK: had the path become a FIFO since the stat, open would not wait for a writer
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode  # what was opened, not what the path named a moment ago
        if not stat.S_ISREG(mode):
            raise _refuse(path, mode)
        with os.fdopen(fd, "rb", closefd=True) as f:
            fd = -1
            return f.read()
    finally:
        if fd >= 0:
            os.close(fd)
