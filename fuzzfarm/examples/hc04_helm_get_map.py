"""HC-04: Helm 2 (Tiller) ``Client.Get``: parallel per-resource callbacks write a shared map.

helm/helm issue #6643, fixed by PR #6654 "fix(kube): fix race condition" (commit 33bb8885).
The batch performer starts one goroutine per resource of the same kind; each callback checks
whether the inner map for its kind exists, creates it if missing, and inserts name -> object
into the nested map shared by all of them: ``fatal error: concurrent map writes`` (a read
racing with a write gives ``concurrent map read and map write``).

Fixed: a mutex local to ``Get`` is held for the whole callback body.
"""

from __future__ import annotations

from fuzzfarm import gosim

ID = "HC-04"
TITLE = "Helm Client.Get: per-resource callbacks write a shared map"
SOURCE = "https://github.com/helm/helm/issues/6643 (fix PR #6654)"
KIND = "concurrent map writes"
KINDS = (KIND, "concurrent map read and map write")
EXC_CLASS = None
DEPTH = 1
RUN_KW = {"check_leaks": True}

RESOURCES = (("v1/Pod", "web-0"), ("v1/Pod", "web-1"), ("v1/Pod", "web-2"))


def _get(serialize: bool):
    def main():
        objs = gosim.Map(name="objs")  # version/kind -> (name -> object)
        missing = []
        mu = gosim.Mutex("Get.mu")
        wg = gosim.WaitGroup("batch")

        def callback(kind, name):
            gosim.gosched()  # fetch the object from the API server
            if serialize:
                mu.lock()
            try:
                inner, ok = objs.lookup(kind)
                if not ok:
                    inner = gosim.Map(name=f"objs[{kind}]")
                    objs[kind] = inner
                inner[name] = {"kind": kind, "name": name}
            finally:
                if serialize:
                    mu.unlock()
            wg.done()

        # perform(): consecutive resources of the same kind run concurrently
        wg.add(len(RESOURCES))
        for kind, name in RESOURCES:
            gosim.go(callback, kind, name, name=f"callback[{name}]")
        wg.wait()
        assert not missing

    return main


buggy = _get(serialize=False)
fixed = _get(serialize=True)
buggy.__doc__ = "The scenario before the upstream fix (fails under some schedule; see KINDS)."
fixed.__doc__ = "The scenario after the upstream fix (never fails)."
