"""HC-04: Helm 2 (Tiller) ``Client.Get``: parallel per-resource callbacks write a shared map.

helm/helm issue #6643, fixed by PR #6654 "fix(kube): fix race condition" (commit 33bb8885).
The batch performer starts one goroutine per resource of the same kind; each callback checks
whether the inner map for its kind exists, creates it if missing, and inserts name -> object
into the nested map shared by all of them: ``fatal error: concurrent map writes`` (a read
racing with a write gives ``concurrent map read and map write``).

Fixed: a mutex local to ``Get`` is held for the whole callback body.

Go lines: helm@c0c2270fa2bf84f4851e5ebbf046ad0df67738cd pkg/kube/client.go (the parent of the fix);
``perform``/``batchPerform`` (:615, :632) are folded into ``main``. The fix adds the mutex at :221
and takes it at :232-233 of its own file.
"""

from __future__ import annotations

from fuzzfarm import gosim
from fuzzfarm.gosim import go_func, not_ported

ID = "HC-04"
TITLE = "Helm Client.Get: per-resource callbacks write a shared map"
SOURCE = "https://github.com/helm/helm/issues/6643 (fix PR #6654)"
KIND = "concurrent map writes"
# under go test -race (gosim race=True) the detector reports the unsynchronised map accesses first
# in most schedules: its Go twin reports a race in 100 of 100 real-Go -race runs
KINDS = (KIND, "concurrent map read and map write", "data race")
EXC_CLASS = None
DEPTH = 1
RUN_KW = {"check_leaks": True}

RESOURCES = (("v1/Pod", "web-0"), ("v1/Pod", "web-1"), ("v1/Pod", "web-2"))


@not_ported("builds the scenario's main for one variant")
def _get(serialize: bool):
    @go_func("Client.Get", "client.go:217")
    def main():
        objs = gosim.Map(name="objs")  # :220 version/kind -> (name -> object)
        missing = []
        mu = gosim.Mutex("Get.mu")
        wg = gosim.WaitGroup("batch")

        @go_func("Client.Get.func1", "client.go:229")
        def callback(kind, name):
            gosim.gosched()  # :231 info.Get(): fetch the object from the API server
            if serialize:
                mu.lock()
            try:
                inner, ok = objs.lookup(kind)  # :245
                if not ok:
                    inner = gosim.Map(name=f"objs[{kind}]")
                    objs[kind] = inner  # :246
                inner[name] = {"kind": kind, "name": name}  # :249
            finally:
                if serialize:
                    mu.unlock()
            wg.done()

        # perform(): consecutive resources of the same kind run concurrently
        wg.add(len(RESOURCES))  # batchPerform's wg.Add(1) per resource (client.go line 641, not in Get)
        for kind, name in RESOURCES:
            gosim.go(callback, kind, name, name=f"callback[{name}]")  # batchPerform's go func (client.go line 642)
        wg.wait()
        assert not missing

    return main


buggy = _get(serialize=False)
fixed = _get(serialize=True)
buggy.__doc__ = "The scenario before the upstream fix (fails under some schedule; see KINDS)."
fixed.__doc__ = "The scenario after the upstream fix (never fails)."
