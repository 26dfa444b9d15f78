"""Stand-ins for the client-go pieces ``cluster.New`` and prow touch, and the fake API server.

Only behaviour that matters for scheduling and errors is kept:

* ``Config`` is ``rest.Config``: a host, a user agent, whether its TLS material loads (an
  invalid kubeconfig fails every ``HTTPClientFor``), and the fake server behind it.
* ``http_client_for`` is ``rest.HTTPClientFor``: TLS files are loaded first (errors there return
  before any lock), then the transport comes from client-go's process-wide TLS transport cache,
  which a mutex guards (``k8s.io/client-go/transport/cache.go``, ``tlsTransportCache.get``).
  That lock is the only synchronisation callers of ``cluster.New`` share; it staggers them.
* ``FakeAPIServer`` answers discovery and SelfSubjectAccessReview requests. Every request is a
  scheduling point (network I/O). Its health can change at a virtual time (a transient outage
  or an RBAC fix), and a request may never be answered (an API server that accepts the
  connection but never replies; client-go sets no deadline here, docs/ports/prow.md#h4).
"""

from __future__ import annotations

import dataclasses

from fuzzfarm import gosim
from fuzzfarm.gosim import go_func, not_ported

from . import goerrors, process_global, struct_copy

DEFAULT_USER_AGENT = "fuzzfarm-port/v0.0.0 (linux/amd64) kubernetes/$Format"


@go_func("rest.DefaultKubernetesUserAgent", "config.go:498")
def default_kubernetes_user_agent() -> str:
    """``rest.DefaultKubernetesUserAgent()``."""
    return DEFAULT_USER_AGENT


@dataclasses.dataclass
class Config:
    """``rest.Config`` (reduced). ``tls_error``: loading the TLS files fails with this text
    (a broken kubeconfig); ``server``: the fake cluster this config points at."""

    host: str
    user_agent: str = ""
    tls_error: str | None = None
    server: "FakeAPIServer | None" = None


@go_func("rest.CopyConfig", "config.go:626")
def copy_config(config: Config) -> Config:
    """``rest.CopyConfig`` (the fake server is the world behind the config, not copied)."""
    return struct_copy(config)


@dataclasses.dataclass
class HTTPClient:
    """``*http.Client`` bound to one host through a cached transport."""

    host: str
    server: "FakeAPIServer | None"
    transport: int


class _TLSTransportCache:
    """client-go ``transport.tlsCache``: transports by TLS config key, under a mutex."""

    @not_ported("the package variable tlsCache's value: Go needs no function for it")
    def __init__(self) -> None:
        self.mu = gosim.Mutex(name="tlsCache.mu")
        self.transports: dict[str, int] = {}

    @go_func("transport.tlsTransportCache.get", "cache.go:74")
    def get(self, config: Config) -> int:
        self.mu.lock()  # :82
        try:
            key = config.host
            t = self.transports.get(key)
            if t is None:
                t = self.transports[key] = len(self.transports) + 1
            return t
        finally:
            self.mu.unlock()


@go_func("rest.HTTPClientFor", "transport.go:32")
def http_client_for(config: Config) -> tuple[HTTPClient | None, goerrors.Error | None]:
    """``rest.HTTPClientFor(config)``: fails when the TLS material does not load."""
    if config.tls_error is not None:
        return None, goerrors.new(config.tls_error)
    cache = process_global("client-go/transport.tlsCache", _TLSTransportCache)
    return HTTPClient(config.host, config.server, cache.get(config)), None


# --------------------------------------------------------------------------- the fake network

NAMESPACED_KINDS = {"Pod": True, "ConfigMap": True, "Secret": True, "Node": False, "Namespace": False}


@dataclasses.dataclass
class SSARStatus:
    """``SelfSubjectAccessReview.Status`` (only ``allowed``)."""

    allowed: bool


@dataclasses.dataclass
class FakeAPIServer:
    """The API server of one build cluster, as the fuzz input describes it.

    * ``reachable``: False - every request fails (connection refused) until ``recover_at``;
    * ``denied_verb``: SSAR for this verb is not allowed until ``recover_at``;
    * ``hang_verb``: the SSAR request for this verb is accepted and never answered (forever);
    * ``recover_at``: virtual time from which the outage / denial is over (None: never).

    ``requests`` logs ``(now, gid, what)``; ``hung`` the goroutines parked forever here.
    """

    name: str
    reachable: bool = True
    denied_verb: str | None = None
    hang_verb: str | None = None
    recover_at: float | None = None
    requests: list = dataclasses.field(default_factory=list)
    hung: list = dataclasses.field(default_factory=list)

    @property
    @not_ported("fake network: the API server's address")
    def host(self) -> str:
        return f"https://{self.name}.example:6443"

    @not_ported("fake network: whether the scripted outage is over")
    def _recovered(self) -> bool:
        return self.recover_at is not None and gosim.now() >= self.recover_at

    @not_ported("fake network: one request on the wire")
    def _roundtrip(self, method: str, path: str) -> goerrors.Error | None:
        # The request is on the wire: other goroutines run meanwhile (a scheduling point).
        gosim.current_runtime().sched("net", f"{self.name}: {method} {path}")
        self.requests.append((gosim.now(), gosim.goroutine_id(), f"{method} {path}"))
        if not self.reachable and not self._recovered():
            return goerrors.new(f'{method} "{self.host}{path}": dial tcp {self.name}:6443: connect: connection refused')
        return None

    @not_ported("fake network: answers discovery")
    def discover(self, kind: str) -> tuple[bool, goerrors.Error | None]:
        """Discovery of ``kind``'s REST mapping: (namespaced, err)."""
        err = self._roundtrip("Get", "/api/v1")
        if err is not None:
            return False, err
        if kind not in NAMESPACED_KINDS:
            return False, goerrors.new(f'no matches for kind "{kind}" in version "v1"')
        return NAMESPACED_KINDS[kind], None

    @not_ported("fake network: answers a SelfSubjectAccessReview, or never does")
    def create_ssar(self, verb: str) -> tuple[SSARStatus | None, goerrors.Error | None]:
        """``POST selfsubjectaccessreviews`` for ``verb`` on pods."""
        if self.hang_verb == verb:
            gosim.current_runtime().sched("net", f"{self.name}: POST ssar {verb}")
            self.requests.append((gosim.now(), gosim.goroutine_id(), f"POST ssar {verb} (no answer, ever)"))
            self.hung.append(gosim.goroutine_id())
            # Accepted, never answered, and the caller set no deadline: block forever.
            gosim.Chan(0, name=f"{self.name} SSAR {verb} response").recv()
            raise AssertionError("unreachable: nothing ever answers a hung request")
        err = self._roundtrip("Post", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews")
        if err is not None:
            return None, err
        if self.denied_verb == verb and not self._recovered():
            return SSARStatus(False), None
        return SSARStatus(True), None
