"""What a deployment reads from this machine before it starts anything: the app's upload limit, the cookie
secret every process shares, free ports, this machine's address on its network; and :class:`DeployError`,
the one kind of error the deployment shows the user (as a message, without a traceback).

>>> check_port_free("127.0.0.1", free_loopback_port())
"""

from __future__ import annotations

import os
import secrets
import socket
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Streamlit's own default for server.maxUploadSize (MB), used when .streamlit/config.toml does not set it
STREAMLIT_DEFAULT_UPLOAD_MB = 200


class DeployError(Exception):
    """A problem the user can fix; printed as one message, without a traceback."""


def max_upload_mb(root: Path = ROOT) -> int:
    """``server.maxUploadSize`` from the app's ``.streamlit/config.toml`` (Streamlit's default if unset)."""
    path = root / ".streamlit" / "config.toml"
    if not path.exists():
        return STREAMLIT_DEFAULT_UPLOAD_MB
    with path.open("rb") as f:
        value = tomllib.load(f).get("server", {}).get("maxUploadSize", STREAMLIT_DEFAULT_UPLOAD_MB)
    if not isinstance(value, int) or value <= 0:
        raise DeployError(f"{path}: server.maxUploadSize must be a positive whole number of MB, not {value!r}")
    return value


def cookie_secret(run_dir: Path) -> str:
    """The secret every process shares: env STREAMLIT_SERVER_COOKIE_SECRET, else ``<run dir>/cookie_secret``
    (generated on the first start, kept across restarts so browsers' signed cookies stay valid)."""
    env = os.environ.get("STREAMLIT_SERVER_COOKIE_SECRET")
    if env:
        return env
    path = run_dir / "cookie_secret"
    if path.exists():
        value = path.read_text(encoding="ascii").strip()
        if value:
            return value
    value = secrets.token_hex(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as f:
        f.write(value + "\n")
    return value


def free_loopback_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def check_port_free(host: str, port: int) -> None:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except PermissionError:
            raise DeployError(
                f"cannot listen on {host}:{port}: ports below 1024 need root. Pick another with --port."
            ) from None
        except OSError as exc:
            raise DeployError(
                f"cannot listen on {host}:{port} ({exc.strerror}): another server uses it? Pick another with --port."
            ) from None


def lan_address() -> str | None:
    """This machine's address on its default route (a UDP socket is 'connected'; nothing is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))  # TEST-NET-1: never routed anywhere
            addr = s.getsockname()[0]
        except OSError:
            return None
    return None if addr.startswith("127.") or addr == "0.0.0.0" else addr
