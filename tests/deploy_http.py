"""Plain HTTP to the lecture-hall deployment (tests/test_deploy.py): a request with or without the sticky
cookie, and which process the cookie that nginx set pins the client to."""

from __future__ import annotations

import re
import urllib.error
import urllib.request

from deploy.nginx import COOKIE


def http(
    url: str, cookie: str | None = None, method: str = "GET", data: bytes | None = None, ua: str = "bpelab-deploy-test"
) -> tuple[int, dict]:
    req = urllib.request.Request(url, method=method, data=data, headers={"User-Agent": ua})
    if cookie:
        req.add_header("Cookie", cookie)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            r.read()
            return r.status, dict(r.headers)
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers)


def route_set(headers: dict) -> str | None:
    m = re.match(rf"{COOKIE}=(\w+);", headers.get("Set-Cookie", ""))
    return m.group(1) if m else None
