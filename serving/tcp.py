"""``TCP_NODELAY`` on the server's connections: without it every HTTP response on a kept-alive connection
waited ~40 ms.

Streamlit 1.67 binds its listening socket itself (``starlette_server._bind_socket``: ``socket.socket(family)``,
protocol number 0) and hands it to uvicorn. asyncio turns Nagle's algorithm off (``TCP_NODELAY``) only on
sockets whose protocol is ``IPPROTO_TCP``, so on Streamlit's connections Nagle stays on: a response written as
headers then body holds the body until the client acknowledges the headers, and the client delays that
acknowledgement (Linux: 40 ms). Measured on this machine: every request but a connection's first took 42–48 ms
(``/_stcore/health``, a 2 KB static file, a JSON route), against 0.3–3 ms with the option set; a fresh page
makes ~120 requests over Chromium's 6 connections.

:func:`nodelay_lifespan` (``app.py`` gives it to ``st.App``) sets ``TCP_NODELAY`` on the process's listening
TCP sockets when the server starts (the socket is bound before); Linux copies the option to every connection
accepted from them. Linux only (``/proc/self/fd``); elsewhere it does nothing.
"""

from __future__ import annotations

import contextlib
import os
import socket


def listening_tcp_sockets() -> list[int]:
    """File descriptors of this process's listening IPv4/IPv6 TCP sockets."""
    out = []
    try:
        fds = os.listdir("/proc/self/fd")
    except OSError:
        return out
    for name in fds:
        fd = int(name)
        try:
            if not os.readlink(f"/proc/self/fd/{fd}").startswith("socket:"):
                continue
            dup = os.dup(fd)
        except OSError:
            continue
        try:
            s = socket.socket(fileno=dup)  # family and type read from the socket
        except OSError:
            os.close(dup)
            continue
        with s:
            try:
                if (
                    s.family in (socket.AF_INET, socket.AF_INET6)
                    and s.type == socket.SOCK_STREAM
                    and s.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN)
                ):
                    out.append(fd)
            except OSError:
                pass
    return out


def set_nodelay() -> int:
    """Set ``TCP_NODELAY`` on every listening TCP socket of this process; returns how many."""
    done = 0
    for fd in listening_tcp_sockets():
        with contextlib.suppress(OSError), socket.socket(fileno=os.dup(fd)) as s:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            done += 1
    return done


@contextlib.asynccontextmanager
async def nodelay_lifespan(_app):
    """``st.App``'s ``lifespan``: :func:`set_nodelay` once the server starts; nothing at shutdown."""
    set_nodelay()
    yield None
