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
"""

from __future__ import annotations

from fuzzfarm import gosim

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

    def __init__(self, fixed: bool):
        self.fixed = fixed
        self.loading_lock = gosim.Mutex("loadingLock")
        self.client_config = None
        self.loads = 0

    def create_client_config(self):
        """Go: ``(*DeferredLoadingClientConfig).createClientConfig``."""
        if self.fixed:  # after PR #92139: lock, then check
            with self.loading_lock:
                if self.client_config is not None:
                    return self.client_config
                return self._load()
        if self.client_config is None:  # the unlocked read
            with self.loading_lock:
                if self.client_config is None:
                    self._load()
        return self.client_config  # unlocked again

    def _load(self):
        gosim.gosched()  # loader.Load(): read and merge the kubeconfig files
        self.loads += 1
        self.client_config = {"server": "https://10.0.0.1:6443", "load": self.loads}  # the locked write
        return self.client_config

    def client_config_rest(self):
        """Go: ``(*DeferredLoadingClientConfig).ClientConfig`` (the part before in-cluster checks)."""
        cfg = self.create_client_config()
        return dict(cfg)


def _scenario(fixed: bool):
    def main():
        loader = DeferredLoadingClientConfig(fixed)
        wg = gosim.WaitGroup("controllers")
        got = []

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
