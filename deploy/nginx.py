"""nginx in front of the Streamlit processes: its config rendered from ``deploy/nginx.conf.template``
(sticky sessions by the route cookie, websocket upgrade, upload size, TLS), finding the binary, the user its
workers run as, and its temp folders (fresh for each run, a killed run's removed).
"""

from __future__ import annotations

import grp
import json
import os
import pwd
import re
import shutil
import tempfile
from pathlib import Path

from .machine import DeployError

TEMPLATE = Path(__file__).with_name("nginx.conf.template")
#: the cookie nginx sets to name the process that answered a browser (its later requests follow it)
COOKIE = "bpelab_route"

NGINX_MISSING = """nginx is not installed (looked for it on PATH and at /usr/sbin/nginx).
Install Debian's package:
    sudo apt-get install nginx
This script runs its own nginx in the foreground and does not need the system service; on a machine
with systemd, `sudo systemctl disable --now nginx` stops the one the package starts on port 80.
Or pass --nginx /path/to/nginx."""


#: Who may show the app in a frame (CSP ``frame-ancestors``): only its own pages unless ``--frame-ancestors``
#: names more (a course site, a slide deck: ``"'self' https://slides.example.org"``).
DEFAULT_FRAME_ANCESTORS = "'self'"
#: one source of ``frame-ancestors``: a keyword, a scheme (``https:``) or a host with optional scheme, port, path
_FRAME_SOURCE = re.compile(
    r"'self'|'none'|\*|[a-z][a-z0-9+.-]*:|(?:[a-z][a-z0-9+.-]*://)?(?:\*\.)?[a-z0-9-]+"
    r"(?:\.[a-z0-9-]+)*(?::(?:[0-9]{1,5}|\*))?(?:/[a-z0-9._~%/-]*)?",
    re.IGNORECASE,
)


def check_frame_ancestors(value: str) -> str:
    """``value`` as one CSP ``frame-ancestors`` source list (single spaces), or :class:`DeployError` naming
    the source that is not one (nothing but sources reaches nginx's config: no quote, ``;`` or newline).

    >>> check_frame_ancestors("  'self'   https://slides.example.org https://*.uni.edu:8443  ")
    "'self' https://slides.example.org https://*.uni.edu:8443"
    >>> check_frame_ancestors("'self'; script-src *")
    Traceback (most recent call last):
    ...
    deploy.machine.DeployError: --frame-ancestors: "'self';" is not a frame-ancestors source (e.g. 'self', 'none', https://slides.example.org)
    """
    sources = value.split()
    if not sources:
        raise DeployError("--frame-ancestors is empty (use 'none' to allow no frame at all)")
    for source in sources:
        if not _FRAME_SOURCE.fullmatch(source):
            raise DeployError(
                f"--frame-ancestors: {json.dumps(source)} is not a frame-ancestors source (e.g. 'self', "
                "'none', https://slides.example.org)"
            )
    if "'none'" in sources and len(sources) > 1:
        raise DeployError("--frame-ancestors: 'none' stands alone")
    return " ".join(sources)


def security_headers(frame_ancestors: str = DEFAULT_FRAME_ANCESTORS) -> list[str]:
    """The ``add_header`` lines every response carries (``always``: errors too). nginx drops a server's
    ``add_header`` lines in a location that has its own, so each such location repeats these.

    * ``X-Content-Type-Options: nosniff``: a browser runs a script or style only with its declared type;
    * ``Content-Security-Policy: frame-ancestors ...``: who may frame the app (clickjacking), with
      ``X-Frame-Options`` for browsers without CSP when the list is ``'self'`` or ``'none'``.

    >>> security_headers()[1]
    'add_header Content-Security-Policy "frame-ancestors \'self\'" always;'
    """
    frame_ancestors = check_frame_ancestors(frame_ancestors)
    lines = [
        'add_header X-Content-Type-Options "nosniff" always;',
        f'add_header Content-Security-Policy "frame-ancestors {frame_ancestors}" always;',
    ]
    legacy = {"'self'": "SAMEORIGIN", "'none'": "DENY"}.get(frame_ancestors)
    if legacy:
        lines.append(f'add_header X-Frame-Options "{legacy}" always;')
    return lines


def render_nginx_conf(
    *,
    listen: str,
    backends: list[tuple[str, int]],
    run_dir: Path,
    temp_dir: Path,
    max_body_mb: int,
    user_line: str = "",
    secure_cookie: bool = False,
    tls: tuple[Path, Path] | None = None,
    static_dir: Path | None = None,
    frame_ancestors: str = DEFAULT_FRAME_ANCESTORS,
) -> str:
    """The nginx config for ``backends`` (``[(name, port), ...]``) from ``deploy/nginx.conf.template``;
    with ``tls=(certificate, key)`` nginx serves HTTPS (and the route cookie is ``Secure``); with
    ``static_dir`` (:func:`streamlit_static_dir`) nginx serves ``/static/`` from it itself;
    ``frame_ancestors`` says who may frame the app (:func:`security_headers`).

    >>> conf = render_nginx_conf(listen="127.0.0.1:8501", backends=[("p1", 8601), ("p2", 8602)],
    ...                          run_dir=Path("/r"), temp_dir=Path("/t"), max_body_mb=61)
    >>> "server 127.0.0.1:8602 backup;" in conf and "{{" not in conf
    True
    """
    ind = " " * 8
    addr = {name: f"127.0.0.1:{port}" for name, port in backends}
    blocks = []
    for name, _ in backends:
        lines = [
            f"upstream bpelab_{name} {{",
            f"    zone bpelab_{name} 64k;",
            f"    server {addr[name]} max_fails=1 fail_timeout=10s;",
        ]
        lines += [f"    server {addr[other]} backup;" for other, _ in backends if other != name]
        blocks.append("\n".join(ind[:4] + line for line in lines + ["}"]))
    values = {
        "pid_file": str(run_dir / "nginx.pid"),
        "user_line": user_line,
        "error_log": str(run_dir / "logs" / "nginx-error.log"),
        "access_log": str(run_dir / "logs" / "nginx-access.log"),
        "temp_dir": str(temp_dir),
        "cookie": COOKIE,
        "cookie_flags": "; Secure" if secure_cookie or tls else "",
        "tls": ""
        if tls is None
        else (
            f"{ind}ssl_certificate {tls[0]};\n{ind}ssl_certificate_key {tls[1]};\n{ind}ssl_protocols TLSv1.2 TLSv1.3;"
        ),
        "served_map": "\n".join(f'{ind}"~127\\.0\\.0\\.1:{port}$" {name};' for name, port in backends),
        "upstream_map": "\n".join(f"{ind}{name} bpelab_{name};" for name, _ in backends),
        "all_servers": "\n".join(f"{ind}server {addr[name]} max_fails=1 fail_timeout=10s;" for name, _ in backends),
        "process_upstreams": "\n".join(blocks),
        "listen": listen + (" ssl" if tls else ""),
        "max_body": f"{max_body_mb}m",
        "static": static_location(static_dir, frame_ancestors),
        "security_headers": "\n".join(ind + line for line in security_headers(frame_ancestors)),
    }
    conf = TEMPLATE.read_text(encoding="utf-8")
    for key, value in values.items():
        conf = conf.replace("{{" + key + "}}", value)
    if re.search(r"\{\{\w+\}\}", conf):
        raise AssertionError("nginx.conf.template has a placeholder render_nginx_conf does not fill")
    return conf


def streamlit_static_dir() -> Path:
    """The folder the installed Streamlit serves ``/static/`` from (content-hashed bundles, styles, fonts)."""
    import streamlit

    return Path(streamlit.__file__).resolve().parent / "static" / "static"


def reachable_by_others(folder: Path) -> bool:
    """Whether a user other than the owner can get to ``folder``: it and every parent searchable by others."""
    return all(p.stat().st_mode & 0o001 for p in [folder, *folder.parents])


def readable_by_all(folder: Path) -> bool:
    """Whether nginx's workers can read ``folder``'s files: as root they run as nobody, who needs the folder
    reachable (:func:`reachable_by_others`) and every file readable by others."""
    if not folder.is_dir():
        return False
    if os.geteuid() != 0:
        return True
    return reachable_by_others(folder) and all(f.stat().st_mode & 0o004 for f in folder.rglob("*") if f.is_file())


def static_copy(static_dir: Path, temp_dir: Path) -> Path:
    """A copy of ``static_dir`` that nginx's workers can read, in their temp folder (``nginx_temp_dir``: removed
    when the deployment stops): for a Streamlit installed where ``nobody`` cannot reach (a virtual environment
    under a private folder). Folders 755, files 644; ~26 MB."""
    dest = temp_dir / "static"
    shutil.copytree(static_dir, dest)
    for path in [dest, *dest.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return dest


def static_location(static_dir: Path | None, frame_ancestors: str = DEFAULT_FRAME_ANCESTORS) -> str:
    """The ``location /static/`` block that serves Streamlit's static files from ``static_dir`` (names carry
    a content hash, so browsers may keep them a year; JavaScript and CSS gzipped at level 1, cheap for
    nginx's worker and about a third of the bytes over a lecture hall's Wi-Fi), or a comment saying why
    they go through the Streamlit processes instead.

    >>> static_location(None).strip()
    '# (static files: through the Streamlit processes)'
    """
    ind = " " * 8
    if static_dir is None:
        return f"{ind}# (static files: through the Streamlit processes)"
    types = {
        "application/javascript": "js mjs",
        "text/css": "css",
        "application/json": "json map",
        "font/woff2": "woff2",
        "image/png": "png",
        "image/gif": "gif",
        "image/svg+xml": "svg",
    }
    body = [
        "location /static/ {",
        f"    alias {static_dir}/;",
        "    # the types Streamlit sends (a module script with another type is refused by browsers)",
        "    types {",
        *(f"        {t} {ext};" for t, ext in types.items()),
        "    }",
        "    default_type application/octet-stream;",
        '    add_header Cache-Control "public, max-age=31536000, immutable";',
        "    # (its own add_header drops the server's: the security headers again)",
        *("    " + line for line in security_headers(frame_ancestors)),
        "    gzip on;",
        "    gzip_comp_level 1;",
        "    gzip_min_length 1024;",
        "    gzip_types text/css application/javascript application/json image/svg+xml;",
        "}",
    ]
    return "\n".join(ind + line for line in body)


def find_nginx(given: str | None) -> str:
    if given:
        if not (os.path.isfile(given) and os.access(given, os.X_OK)):
            raise DeployError(f"--nginx {given}: not an executable file")
        return given
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None)
    if not found:
        raise DeployError(NGINX_MISSING)
    return found


def worker_user_line() -> str:
    """As root, nginx's workers drop to nobody (nginx's own default); as anyone else they run as that user."""
    if os.geteuid() != 0:
        return ""
    try:
        pwd.getpwnam("nobody")
    except KeyError:
        return "user root;"
    for group in ("nogroup", "nobody"):
        try:
            grp.getgrnam(group)
            return f"user nobody {group};"
        except KeyError:
            pass
    return "user nobody;"


def nginx_temp_dir(run_dir: Path) -> Path:
    """A fresh folder for nginx's temp files, which its workers must reach: ``<run dir>/nginx-temp``, or, as
    root (workers run as nobody) when nobody cannot get through the run dir's parents, one under /tmp."""
    path = run_dir / "nginx-temp"
    if os.geteuid() == 0 and not reachable_by_others(run_dir):
        path = Path(tempfile.mkdtemp(prefix="bpelab-nginx-"))
    else:
        shutil.rmtree(path, ignore_errors=True)
        path.mkdir()
    path.chmod(0o711)
    return path


def remove_stale_temp(run_dir: Path) -> None:
    """Remove the temp folder of an earlier run in ``run_dir`` that was killed before it could clean up."""
    try:
        state = json.loads((run_dir / "state.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    old, pid = state.get("nginx_temp"), state.get("serve_pid")
    if not old or not isinstance(pid, int) or pid == os.getpid():
        return
    try:
        os.kill(pid, 0)
        return  # that run is still going (another deployment in the same run dir would fail on its port)
    except ProcessLookupError:
        pass
    except PermissionError:
        return
    if Path(old).name.startswith(("bpelab-nginx-", "nginx-temp")):
        shutil.rmtree(old, ignore_errors=True)
