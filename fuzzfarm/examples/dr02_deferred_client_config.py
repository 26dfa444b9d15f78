"""DR-02: client-go clientcmd: double-checked ``clientConfig`` in ``DeferredLoadingClientConfig``.

kubernetes/kubernetes PR #92139 "Fix client config data race". ``createClientConfig``
(client-go ``tools/clientcmd/merged_client_builder.go``) read ``config.clientConfig`` without
the lock to skip loading when it was already set, and set it under ``loadingLock``: an
unlocked read and a locked write of one field, a data race by definition, reported by
``-race`` when two goroutines build clients from one kubeconfig loader. It never crashes (the
pointer write is atomic on the hardware), so only the race detector sees it.

Port: ``DeferredLoadingClientConfig.client_config`` is a ``gosim.Shared`` field (upstream's
plain ``clientConfig``); two controllers start and each calls ``client_config()`` (Go:
``ClientConfig``), which calls ``create_client_config``. Fixed (the PR): take ``loadingLock``
first, then check the field.

Go lines: client-go@3ab27431ef50d8ae77afe66593d04d5616cbd448 tools/clientcmd/merged_client_builder.go (the
parent of the fix's merge 18c1ef0354fe489b5d9a58088676f854be243aa2); ``# :N`` comments cite buggy lines.
"""

from __future__ import annotations

from fuzzfarm import gosim
from fuzzfarm.gosim import go_func, not_ported

ID = "DR-02"
TITLE = "client-go clientcmd: unlocked read of clientConfig in createClientConfig (double-checked locking)"
SOURCE = "https://github.com/kubernetes/kubernetes/pull/92139"
KIND = "data race"
KINDS = (KIND,)
EXC_CLASS = None
DEPTH = 0
RUN_KW = {"check_leaks": True}


class DeferredLoadingClientConfig:
    """``clientcmd.DeferredLoadingClientConfig`` (the fields this race is about)."""

    client_config = gosim.Shared()  # Go: clientConfig ClientConfig

    @go_func("clientcmd.NewNonInteractiveDeferredLoadingClientConfig", "merged_client_builder.go:53")
    def __init__(self, fixed: bool):
        self.fixed = fixed
        self.loading_lock = gosim.Mutex("loadingLock")
        self.client_config = None
        self.loads = 0

    @go_func("DeferredLoadingClientConfig.createClientConfig", "merged_client_builder.go:62")
    def create_client_config(self):
        """Go: ``(*DeferredLoadingClientConfig).createClientConfig``."""
        if self.fixed:  # after PR #92139: lock, then check
            with self.loading_lock:
                if self.client_config is not None:
                    return self.client_config
                return self._load()
        if self.client_config is None:  # :63 the unlocked read
            with self.loading_lock:  # :64
                if self.client_config is None:  # :67
                    self._load()
        return self.client_config  # :84 unlocked again

    @go_func("DeferredLoadingClientConfig.createClientConfig", "merged_client_builder.go:62")
    def _load(self):
        """The loading half of ``createClientConfig`` (inline upstream), shared by both variants."""
        gosim.gosched()  # :68 loader.Load(): read and merge the kubeconfig files
        self.loads += 1
        self.client_config = {"server": "https://10.0.0.1:6443", "load": self.loads}  # :80 the locked write
        return self.client_config

    @go_func("DeferredLoadingClientConfig.ClientConfig", "merged_client_builder.go:97")
    def client_config_rest(self):
        """Go: ``(*DeferredLoadingClientConfig).ClientConfig`` (the part before in-cluster checks)."""
        cfg = self.create_client_config()  # :98
        return dict(cfg)


@not_ported("builds the scenario's main for one variant")
def _scenario(fixed: bool):
    @not_ported("scenario driver: two controllers start from one kubeconfig loader")
    def main():
        loader = DeferredLoadingClientConfig(fixed)
        wg = gosim.WaitGroup("controllers")
        got = []

        @not_ported("test double: a controller building its clientset")
        def controller(name):  # each controller builds its clientset: kubernetes.NewForConfig(...)
            got.append((name, loader.client_config_rest()["server"]))

        wg.go(controller, "deployments")
        wg.go(controller, "endpoints")
        wg.wait()
        assert len(got) == 2

    return main


buggy = _scenario(fixed=False)
fixed = _scenario(fixed=True)
buggy.__doc__ = "The scenario before the upstream fix (fails under some schedule; see KINDS)."
fixed.__doc__ = "The scenario after the upstream fix (never fails)."
