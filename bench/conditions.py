"""The conditions a benchmark ran under: machine, cores, load, versions and the commit of ``bpe`` measured;
which vocabularies it could measure, and how a comparison with a reference ends.

A benchmark measures whatever ``bpe`` is on the branch it runs on, so the commit is part of every report.

>>> sorted(conditions(["regex"]))[:3]
['bpe_commit', 'cores', 'load_average']
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path

__all__ = ["conditions", "describe", "installed_vocabularies", "load_average", "same_ids_status", "version"]


def version(dist: str) -> str:
    """The installed version of a distribution, or ``"not installed"``."""
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def load_average() -> str:
    """The 1, 5 and 15 minute load averages, e.g. ``"1.02 0.87 0.80"`` (the machine may be shared)."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "unknown"


def _cpu_model() -> str:
    cpuinfo = Path("/proc/cpuinfo")
    lines = cpuinfo.read_text().splitlines() if cpuinfo.exists() else []
    return next(
        (line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")),
        platform.processor() or "unknown CPU",
    )


def _commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            cwd=Path(__file__).resolve().parent,
            check=False,
        )
    except OSError:
        return "unknown"
    return out.stdout.strip() or "unknown"


def conditions(distributions: list[str]) -> dict:
    """Machine, cores, load, Python, the ``bpe`` commit and the versions of ``distributions``."""
    return dict(
        machine=f"{platform.system()} {platform.machine()}, {_cpu_model()}",
        cores=os.cpu_count(),
        load_average=load_average(),
        python=platform.python_version(),
        bpe_commit=_commit(),
        versions={d: version(d) for d in distributions},
    )


def describe(c: dict) -> str:
    """Two lines for the top of a report."""
    versions = "; ".join(f"{d} {v}" for d, v in c["versions"].items())
    return (
        f"machine: {c['machine']}; {c['cores']} cores; load average {c['load_average']}\n"
        f"python {c['python']}; bpe at commit {c['bpe_commit']}; {versions}"
    )


def installed_vocabularies(names: list[str]) -> list[str]:
    """The registry vocabularies of ``names`` whose data package is installed, in order; each missing one is
    named with the command that installs it, and skipped."""
    from bpe import pretrained

    found = []
    for name in names:
        if pretrained.is_installed(name):
            found.append(name)
        else:
            print(f"{name}: not installed ({pretrained.PRETRAINED[name].install_command}), skipped")
    return found


def same_ids_status(same: bool) -> int:
    """A comparison's exit status: 0 when our ids equal the reference's on every text, else 1 (said on stderr)."""
    if not same:
        print("ERROR: ids differ from the reference's", file=sys.stderr)
    return 0 if same else 1
