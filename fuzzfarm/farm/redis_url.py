"""Redis URLs: where the farm's URL comes from, how it is shown, how TLS is set up.

The password lives only in the URL that is handed to redis-py and kombu. It never goes into
``broker_transport_options`` (Celery #9563: those are reported unmasked by ``celery inspect
stats``), and everything meant for people (logs, CLI output, error messages) goes through
:func:`mask`.
"""

from __future__ import annotations

import os
import re
import ssl
from typing import Callable
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

ENV = "FUZZFARM_REDIS_URL"
DEFAULT_URL = "redis://127.0.0.1:6379/0"
SCHEMES = ("redis", "rediss")
_SSL_KEYS = ("ssl_cert_reqs", "ssl_ca_certs", "ssl_certfile", "ssl_keyfile")
_CERT_REQS = {"required": ssl.CERT_REQUIRED, "cert_required": ssl.CERT_REQUIRED,
              "optional": ssl.CERT_OPTIONAL, "cert_optional": ssl.CERT_OPTIONAL,
              "none": ssl.CERT_NONE, "cert_none": ssl.CERT_NONE}


class RedisURLError(ValueError):
    """The URL cannot be used; ``str`` is masked and says what to do."""


def from_env(explicit: str | None = None, fallback: Callable[[], str | None] | None = None) -> str:
    """The URL to use: ``explicit`` (``--redis``), else ``$FUZZFARM_REDIS_URL``, else what
    ``fallback`` gives (the CLI passes the local farm of ``fuzzfarm up``), else the default. Never
    a look around the machine of its own: a fleet worker with no variable must not take a local
    farm's URL (tests/farm/test_redis_url_pure.py)."""
    url = explicit or os.environ.get(ENV) or (fallback() if fallback else None) or DEFAULT_URL
    validate(url)
    return url


def is_configured(explicit: str | None = None) -> bool:
    """True when the user named a Redis (``--redis`` or the environment variable)."""
    return bool(explicit or os.environ.get(ENV))


def validate(url: str) -> None:
    try:
        parts = urlsplit(url)
    except ValueError:  # an unclosed or invalid [IPv6] host
        raise RedisURLError(f"Redis URL {mask(url)!r} has a malformed host (an IPv6 address goes in brackets: "
                            f"redis://[::1]:6379/0); fix --redis or ${ENV}") from None
    if parts.scheme not in SCHEMES:
        raise RedisURLError(f"Redis URL {mask(url)!r} must start with redis:// or rediss://; "
                            f"fix --redis or ${ENV}")
    try:
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError as e:
        # not the parser's own words: with a / in the password they quote a piece of it as the port
        raise RedisURLError(f"Redis URL {mask(url)!r} has a bad port (a '/', '?' or '#' in the password must be "
                            f"percent-encoded); fix --redis or ${ENV}") from None


def _userinfo(url: str) -> str | None:
    """The user-info part of ``url``: between ``://`` and the last ``@``, taken by string
    operations so that a malformed URL (a ``/``, ``#`` or ``?`` in the password) is handled too
    (an ``@`` later in the URL only makes more of it masked); None when there is none."""
    if "://" not in url:
        return None
    rest = url.split("://", 1)[1]
    at = rest.rfind("@")
    return rest[:at] if at >= 0 else None


def secrets(url: str) -> list[str]:
    """What in ``url`` is a password: the user info's password (a lone user name is sent as the
    password by redis-py, so it counts too) and any ``password=`` query parameter."""
    out = []
    info = _userinfo(url)
    if info:
        out.append(info.split(":", 1)[1] if ":" in info else info)
    if "?" in url:
        out += [v for k, v in parse_qsl(url.split("?", 1)[1], keep_blank_values=True) if k.lower() == "password"]
    return [x for x in out if x]


_QUERY_PW = re.compile(r"(?i)(password=)[^&\s]*")


def mask(url: str, placeholder: str = "***") -> str:
    """``url`` with every password replaced by ``placeholder``: the user info's (a user name with
    no password is masked too: redis-py sends it as the password) and a ``password=`` query
    parameter. Works on malformed URLs too."""
    info = _userinfo(url)
    if info:
        user = info.split(":", 1)[0] if ":" in info else ""
        scheme, rest = url.split("://", 1)
        url = f"{scheme}://{user}:{placeholder}@{rest[len(info) + 1:]}"
    return _QUERY_PW.sub(rf"\g<1>{placeholder}", url)


def mask_text(text: str, url: str, placeholder: str = "***") -> str:
    """``text`` with the passwords of ``url`` masked wherever they appear, and any URL-shaped
    password (user info of a ``redis://`` / ``rediss://`` URL, ``password=``) too."""
    for pw in sorted(secrets(url), key=len, reverse=True):
        if len(pw) >= 3:  # a one- or two-character password is masked in URL forms only
            text = text.replace(pw, placeholder)
    text = re.sub(r"(rediss?://[^:/@\s]*:)[^@\s]*@", rf"\g<1>{placeholder}@", text)
    return _QUERY_PW.sub(rf"\g<1>{placeholder}", text)


def ssl_options(url: str) -> dict | None:
    """For a ``rediss://`` URL: the ``broker_use_ssl`` / ``redis_backend_use_ssl`` dict
    (certificate checking on unless the URL says ``ssl_cert_reqs=none|optional``); None for
    ``redis://``."""
    parts = urlsplit(url)
    if parts.scheme != "rediss":
        return None
    q = dict(parse_qsl(parts.query))
    reqs = q.get("ssl_cert_reqs", "required").lower()
    if reqs not in _CERT_REQS:
        raise RedisURLError(f"ssl_cert_reqs={reqs!r} in the Redis URL must be required, optional or none")
    opts = {"ssl_cert_reqs": _CERT_REQS[reqs]}
    for k in ("ssl_ca_certs", "ssl_certfile", "ssl_keyfile"):
        if q.get(k):
            opts[k] = q[k]
    return opts


def without_ssl_query(url: str) -> str:
    """``url`` minus its ``ssl_*`` query parameters (they travel in :func:`ssl_options`)."""
    parts = urlsplit(url)
    q = [(k, v) for k, v in parse_qsl(parts.query) if k not in _SSL_KEYS]
    return urlunsplit(parts._replace(query=urlencode(q)))


_BOUNDED_TLS: type | None = None


def client_options(url: str) -> dict:
    """Extra redis-py client options for ``url``. For ``rediss://``: a connection whose TLS
    handshake is bounded by the connect timeout, not the 30 s read timeout: a ``rediss://`` URL
    that points at a plain-TCP Redis gets no TLS answer at all, and the handshake then waited the
    read timeout on every retry (about 70 s) before saying so."""
    global _BOUNDED_TLS
    if urlsplit(url).scheme != "rediss":
        return {}
    if _BOUNDED_TLS is None:
        from redis.connection import SSLConnection

        class BoundedHandshakeSSLConnection(SSLConnection):
            def _wrap_socket_with_ssl(self, sock):
                sock.settimeout(self.socket_connect_timeout)
                tls = super()._wrap_socket_with_ssl(sock)
                tls.settimeout(self.socket_timeout)
                return tls

        _BOUNDED_TLS = BoundedHandshakeSSLConnection
    return {"connection_class": _BOUNDED_TLS}
