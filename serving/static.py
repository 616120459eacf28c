"""Streamlit's static files (its JavaScript, styles, fonts) sent gzip-compressed by a plain ``streamlit run``.

Streamlit 1.67 keeps ``/static/`` out of its gzip middleware on purpose: Starlette's ``GZipMiddleware``
compresses every response again and keeps nothing. A fresh page then loads ~145 files, ~5 MB, uncompressed.
:class:`CompressedStatic` is an ASGI middleware (``app.py`` gives it to ``st.App``) that answers a ``GET`` or
``HEAD`` of a compressible file under ``/static/`` from a **gzip copy made once**: the first request for a file
compresses it (level 9, in a worker thread; requests for the same file meanwhile wait for that one copy)
into a cache folder, every later request (any browser, any later process with the same folder) sends that
copy, as a file, with ``Content-Encoding: gzip``. The copy is made again when the installed file is newer.

Everything else goes on to Streamlit unchanged: other paths, a client that does not accept gzip, a ``Range``
request, a file already compressed (``.woff2``, images) or under :data:`MIN_SIZE`, a path that is not a plain
file inside Streamlit's static folder (unsafe or missing: Streamlit answers, with its own checks and its
``index.html`` fallback). Headers are Streamlit's (``Cache-Control: public, immutable, max-age=1 year`` for
hashed files, ``no-cache`` for ``index.html`` and ``manifest.json``) plus ``Vary: Accept-Encoding``.

The cache folder: ``$BPE_STATIC_CACHE``, else ``$XDG_CACHE_HOME/bpe-lab/static-gz`` (``~/.cache/...``), with a
sub-folder per Streamlit version; a folder this user does not own, or one others can write, is not used (a
private temporary folder is, instead). Nothing is fetched; the copies of what a fresh page of this app
loads are ~1.2 MB for ~4.9 MB of files.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import mimetypes
import os
import re
import stat
import tempfile
from pathlib import Path

#: suffixes worth compressing (text and uncompressed fonts); woff2, images, audio are compressed already
COMPRESSIBLE = frozenset(
    {".js", ".mjs", ".css", ".html", ".json", ".svg", ".txt", ".map", ".ttf", ".otf", ".wasm", ".xml", ".ico"}
)
#: smaller files are sent as they are (Streamlit's own gzip threshold for its other responses)
MIN_SIZE = 1000
LEVEL = 9
#: Streamlit's cache header for its hashed static files (``starlette_static_routes``)
IMMUTABLE = "public, immutable, max-age=31536000"
_SAFE_PATH = re.compile(r"[A-Za-z0-9_.@~+-]+(/[A-Za-z0-9_.@~+-]+)*")


def accepts_gzip(accept_encoding: str) -> bool:
    """Whether an ``Accept-Encoding`` header allows gzip (``gzip`` or ``*`` listed without ``q=0``).

    >>> accepts_gzip("gzip, deflate, br, zstd"), accepts_gzip("br"), accepts_gzip("gzip;q=0, br")
    (True, False, False)
    >>> accepts_gzip("*"), accepts_gzip(""), accepts_gzip("deflate, GZIP ; q=0.5")
    (True, False, True)
    """
    for part in accept_encoding.lower().split(","):
        name, _, params = part.partition(";")
        if name.strip() in ("gzip", "*"):
            q = params.replace(" ", "")
            if q.startswith("q="):
                try:
                    return float(q[2:]) > 0
                except ValueError:
                    return False
            return True
    return False


def safe_relative(path: str) -> str | None:
    """``path`` (what follows ``/static/``) when it is a plain relative path: letters, digits, ``_.@~+-``
    in ``/``-separated names, none of them ``.`` or ``..``; else None.

    >>> safe_relative("static/js/index.DormvYxC.js"), safe_relative("../etc/passwd"), safe_relative("a//b")
    ('static/js/index.DormvYxC.js', None, None)
    >>> safe_relative("js/%2e%2e/x"), safe_relative("a/./b"), safe_relative("")
    (None, None, None)
    """
    if not _SAFE_PATH.fullmatch(path) or any(part in (".", "..") for part in path.split("/")):
        return None
    return path


def _private_dir(path: Path) -> bool:
    """Whether ``path`` is a real folder owned by this user that nobody else can write."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o022


def cache_dir(version: str) -> Path:
    """The folder of the gzip copies for this Streamlit ``version`` (made, mode 700, when missing)."""
    base = os.environ.get("BPE_STATIC_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "bpe-lab", "static-gz"
    )
    folder = Path(base) / f"streamlit-{version}"
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        if _private_dir(folder):
            return folder
    except OSError:
        pass
    return Path(tempfile.mkdtemp(prefix="bpe-lab-static-gz-"))


def compress_file(src: Path, dst: Path, level: int = LEVEL) -> None:
    """Write ``src`` gzip-compressed to ``dst`` (through a temporary file and a rename: a reader never sees
    half a file, and two processes doing it at once both leave a whole one)."""
    dst.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp = tempfile.mkstemp(dir=dst.parent, prefix=".tmp-")
    try:
        with (
            os.fdopen(fd, "wb") as raw,
            gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=level, mtime=0) as out,
        ):
            out.write(src.read_bytes())
        os.replace(tmp, dst)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


class CompressedStatic:
    """ASGI middleware: ``/static/<file>`` from a gzip copy (see the module's docstring).

    ``static_dir``: Streamlit's static folder (the installed package's by default); ``cache``: the copies'
    folder (:func:`cache_dir` by default); ``base_url``: ``server.baseUrlPath`` (read from Streamlit's config
    when None)."""

    def __init__(
        self,
        app,
        static_dir: str | os.PathLike | None = None,
        cache: str | os.PathLike | None = None,
        base_url: str | None = None,
    ):
        import streamlit
        from streamlit import file_util

        self.app = app
        self.root = Path(static_dir or file_util.get_static_dir()).resolve()
        self.cache = Path(cache) if cache else cache_dir(streamlit.__version__)
        self._base_url = base_url
        self._pending: dict[str, asyncio.Future] = {}
        #: what was sent: files compressed, and responses sent compressed (read by tests and benches)
        self.compressed = 0
        self.served = 0

    def _prefix(self) -> str:
        base = self._base_url
        if base is None:
            from streamlit import config

            base = config.get_option("server.baseUrlPath") or ""
        base = base.strip("/")
        return f"/{base}/static/" if base else "/static/"

    def _source(self, scope) -> tuple[str, Path] | None:
        """(relative path, the installed file) when this request is one to answer compressed."""
        if scope["type"] != "http" or scope.get("method") not in ("GET", "HEAD"):
            return None
        path = scope.get("path", "")
        root_path = scope.get("root_path", "")
        if root_path and path.startswith(root_path + "/"):
            path = path[len(root_path) :]
        prefix = self._prefix()
        if not path.startswith(prefix):
            return None
        rel = safe_relative("static/" + path[len(prefix) :])  # the folder holds static/js, static/css, ...
        if rel is None or os.path.splitext(rel)[1].lower() not in COMPRESSIBLE:
            return None
        headers = dict(scope.get("headers") or ())
        if b"range" in headers or not accepts_gzip(headers.get(b"accept-encoding", b"").decode("latin-1")):
            return None
        src = self.root / rel
        try:
            st = os.stat(src)
        except OSError:
            return None
        if not stat.S_ISREG(st.st_mode) or st.st_size < MIN_SIZE:
            return None
        if not src.resolve().is_relative_to(self.root):
            return None
        return rel, src

    async def _copy(self, rel: str, src: Path) -> Path:
        """The gzip copy of ``src``, made now when missing or older than ``src`` (once for concurrent requests)."""
        dst = self.cache / (rel + ".gz")
        try:
            if os.stat(dst).st_mtime >= os.stat(src).st_mtime:
                return dst
        except OSError:
            pass
        pending = self._pending.get(rel)
        if pending is None:
            from anyio import to_thread

            pending = self._pending[rel] = asyncio.get_running_loop().create_future()
            try:
                await to_thread.run_sync(compress_file, src, dst)
                self.compressed += 1
                pending.set_result(dst)
            except Exception as exc:
                pending.set_exception(exc)
                pending.exception()  # retrieved: no "never retrieved" warning when nobody else waits
                raise
            except BaseException:  # cancelled: those waiting on this copy are cancelled too
                pending.cancel()
                raise
            finally:
                del self._pending[rel]
        return await asyncio.shield(pending)

    async def __call__(self, scope, receive, send) -> None:
        found = self._source(scope)
        if found is None:
            await self.app(scope, receive, send)
            return
        rel, src = found
        try:
            dst = await self._copy(rel, src)
        except OSError:  # no room, a read-only folder: send it as Streamlit would
            await self.app(scope, receive, send)
            return
        from starlette.responses import FileResponse

        name = rel.rsplit("/", 1)[-1]
        cache = "no-cache" if name.endswith(".html") or name == "manifest.json" else IMMUTABLE
        media = mimetypes.guess_type(name)[0] or "application/octet-stream"
        if media.startswith("text/") or media in ("application/javascript", "application/json"):
            media += "; charset=utf-8"
        response = FileResponse(
            dst,
            media_type=media,
            headers={"Content-Encoding": "gzip", "Vary": "Accept-Encoding", "Cache-Control": cache},
        )
        del response.headers["accept-ranges"]
        self.served += 1
        await response(scope, receive, send)
