"""Files from Debian packages, without installing them: ``apt-get download`` + ``dpkg-deb -x``.

The benchmark corpora come from Debian packages (Jane Austen's novels in ``r-cran-janeaustenr``, the
``fortunes-*`` quotations, Firefox language packs). :func:`package_root` downloads a package's ``.deb`` once
into ``DATA_DIR/debs`` and unpacks it into ``DATA_DIR/pkgs/<package>``; :func:`package_path` prefers the
installed copy of a file when the package is installed. Nothing is installed; when a download fails and the
process runs as root, ``apt-get update`` is tried once.

``DATA_DIR`` is ``testkit/data/`` (git-ignored); the ``BPE_LAB_BENCH_DATA`` environment variable overrides it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

__all__ = ["DATA_DIR", "package_root", "package_path"]

#: Where downloaded packages (and the corpora's text caches) live.
DATA_DIR = Path(os.environ.get("BPE_LAB_BENCH_DATA") or Path(__file__).resolve().parent / "data")

_apt_updated = False


def _run(cmd: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)


def package_root(package: str) -> Path:
    """Return a directory holding the unpacked files of Debian ``package``.

    The ``.deb`` is downloaded into ``DATA_DIR/debs`` with ``apt-get download`` (once), then unpacked with
    ``dpkg-deb -x`` into ``DATA_DIR/pkgs/<package>``. Nothing is installed. If the download fails,
    ``apt-get update`` is tried once (when running as root) before giving up with a ``RuntimeError`` that says
    what to run.
    """
    root = DATA_DIR / "pkgs" / package
    if (root / ".complete").exists():
        return root
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    with open(DATA_DIR / ".lock", "w") as lock:
        try:
            import fcntl

            fcntl.flock(lock, fcntl.LOCK_EX)  # one download at a time across processes
        except ImportError:  # not on POSIX: no locking
            pass
        if (root / ".complete").exists():
            return root
        return _fetch_and_unpack(package, root)


def _fetch_and_unpack(package: str, root: Path) -> Path:
    global _apt_updated
    for tool in ("apt-get", "dpkg-deb"):
        if shutil.which(tool) is None:
            raise RuntimeError(
                f"`{tool}` was not found: the benchmark corpora need a Debian system to fetch the "
                f"package {package!r} (or install it: `apt-get install {package}`)."
            )
    debs = DATA_DIR / "debs"
    debs.mkdir(parents=True, exist_ok=True)
    found = sorted(debs.glob(f"{package}_*.deb"))
    if not found:
        proc = _run(["apt-get", "download", package], cwd=debs)
        if proc.returncode != 0 and not _apt_updated and hasattr(os, "geteuid") and os.geteuid() == 0:
            _apt_updated = True
            _run(["apt-get", "update", "-qq"])
            proc = _run(["apt-get", "download", package], cwd=debs)
        found = sorted(debs.glob(f"{package}_*.deb"))
        if proc.returncode != 0 or not found:
            raise RuntimeError(
                f"Could not download the Debian package {package!r} with `apt-get download {package}` "
                f"(exit {proc.returncode}): {proc.stderr.strip()[-500:]}\n"
                f"Run `apt-get update` and retry, or install the package: `apt-get install {package}`."
            )
    deb = found[-1]
    tmp = Path(tempfile.mkdtemp(prefix=f".{package}-", dir=debs))
    try:
        proc = _run(["dpkg-deb", "-x", str(deb), str(tmp)])
        if proc.returncode != 0:
            raise RuntimeError(f"`dpkg-deb -x {deb}` failed: {proc.stderr.strip()[-500:]}")
        (tmp / ".complete").write_text(deb.name + "\n")
        root.parent.mkdir(parents=True, exist_ok=True)
        if root.exists():
            shutil.rmtree(root)
        os.replace(tmp, root)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return root


def package_path(package: str, rel: str) -> Path:
    """Path of ``/rel`` from ``package``: the installed copy if the package is installed on this system,
    otherwise the copy unpacked from its ``.deb``."""
    installed = Path("/") / rel
    if installed.exists() and Path(f"/var/lib/dpkg/info/{package}.list").exists():
        return installed
    return package_root(package) / rel
