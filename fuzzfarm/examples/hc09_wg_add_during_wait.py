"""HC-09: etcd server: ``WaitGroup.Add`` from background goroutines races with ``Wait`` during stop.

etcd-io/etcd issue #6534, fixed by PR #6628 "etcdserver: make WaitGroup.Add sync with Wait";
same kind: cilium/cilium PR #38692. The server's "go-attach" helper does ``wg.Add(1)`` then
``go f()`` with ``defer wg.Done()``; some attaches come from other background goroutines
(the apply path). Shutdown closes ``stopping`` and calls ``wg.Wait()``. If the last tracked
task's ``Done`` releases the waiter and an attach's ``Add(1)`` lands before the waiter
resumes: ``panic: sync: WaitGroup is reused before previous Wait has returned``.

Fixed: go-attach takes the read side of an RWMutex, drops the task if ``stopping`` is closed,
else adds; shutdown takes the write side to close ``stopping`` and only then waits.

Go lines: etcd@546873f27e4b834b0cdbcdae3851e30aaa27b9e4 etcdserver/server.go (the first parent of the
fix's merge 614adb023); the fixed ``goAttach`` cites the merge's file (:1615). Shutdown is the
deferred closure of ``EtcdServer.run`` (:646), the fifth closure in ``run``.
"""

from __future__ import annotations

from fuzzfarm import gosim
from fuzzfarm.gosim import go_func, not_ported

ID = "HC-09"
TITLE = "etcd go-attach WaitGroup.Add races with Wait during stop"
SOURCE = "https://github.com/etcd-io/etcd/issues/6534 (fix PR #6628)"
KIND = "WaitGroup reused before previous Wait returned"
# under go test -race (gosim race=True): Go's WaitGroup tells its race detector that an Add from
# zero must be ordered with Wait, so the race report comes before the panic; its Go twin reports
# the race in 30 and panics in 1 of 100 real-Go -race runs
KINDS = (KIND, "data race")
EXC_CLASS = None
DEPTH = 2
RUN_KW = {"check_leaks": True}


class _Server:
    @not_ported("EtcdServer's fields wg, wgMu, stopping; upstream's NewServer builds far more")
    def __init__(self, guarded: bool):
        self.guarded = guarded
        self.wg = gosim.WaitGroup("EtcdServer.wg")
        self.wg_mu = gosim.RWMutex("EtcdServer.wgMu")
        self.stopping = gosim.Chan(name="stopping")

    @go_func("EtcdServer.goAttach", "server.go:1611")
    def go_attach(self, f):
        if self.guarded:
            self.wg_mu.rlock()
            try:
                if gosim.select(gosim.recv_case(self.stopping), default=True)[0] == 0:
                    return  # shutting down: drop the task
                self.wg.add(1)
            finally:
                self.wg_mu.runlock()
        else:
            self.wg.add(1)  # :1612

        @go_func("EtcdServer.goAttach.func1", "server.go:1613")
        def task():
            try:
                f()  # :1615
            finally:
                self.wg.done()  # :1614

        gosim.go(task, name="attached task")  # :1613

    @go_func("EtcdServer.run.func5", "server.go:646")
    def stop(self):
        if self.guarded:
            with self.wg_mu:
                self.stopping.close()
        else:
            self.stopping.close()  # :647
        self.wg.wait()  # :652


@not_ported("builds the scenario's main for one variant")
def _scenario(guarded: bool):
    @not_ported("scenario driver: a tracked task runs while the server stops")
    def main():
        s = _Server(guarded)
        s.go_attach(lambda: gosim.sleep(1))  # a tracked task still running at shutdown

        @not_ported("test double: a background goroutine (the apply path) that attaches on its own schedule")
        def apply_loop():  # a background goroutine that attaches on its own schedule
            gosim.sleep(1)
            s.go_attach(gosim.gosched)

        gosim.go(apply_loop, name="applyAll")
        gosim.sleep(1)  # the stop signal arrives while background work is still attaching
        s.stop()
        gosim.sleep(1)

    return main


buggy = _scenario(guarded=False)
fixed = _scenario(guarded=True)
buggy.__doc__ = "The scenario before the upstream fix (fails under some schedule; see KINDS)."
fixed.__doc__ = "The scenario after the upstream fix (never fails)."
