"""HC-09: etcd server: ``WaitGroup.Add`` from background goroutines races with ``Wait`` during stop.

etcd-io/etcd issue #6534, fixed by PR #6628 "etcdserver: make WaitGroup.Add sync with Wait";
same kind: cilium/cilium PR #38692. The server's "go-attach" helper does ``wg.Add(1)`` then
``go f()`` with ``defer wg.Done()``; some attaches come from other background goroutines
(the apply path). Shutdown closes ``stopping`` and calls ``wg.Wait()``. If the last tracked
task's ``Done`` releases the waiter and an attach's ``Add(1)`` lands before the waiter
resumes: ``panic: sync: WaitGroup is reused before previous Wait has returned``.

Fixed: go-attach takes the read side of an RWMutex, drops the task if ``stopping`` is closed,
else adds; shutdown takes the write side to close ``stopping`` and only then waits.
"""

from __future__ import annotations

from fuzzfarm import gosim

ID = "HC-09"
TITLE = "etcd go-attach WaitGroup.Add races with Wait during stop"
SOURCE = "https://github.com/etcd-io/etcd/issues/6534 (fix PR #6628)"
KIND = "WaitGroup reused before previous Wait returned"
KINDS = (KIND,)
EXC_CLASS = None
DEPTH = 2
RUN_KW = {"check_leaks": True}


class _Server:
    def __init__(self, guarded: bool):
        self.guarded = guarded
        self.wg = gosim.WaitGroup("EtcdServer.wg")
        self.wg_mu = gosim.RWMutex("EtcdServer.wgMu")
        self.stopping = gosim.Chan(name="stopping")

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
            self.wg.add(1)

        def task():
            try:
                f()
            finally:
                self.wg.done()

        gosim.go(task, name="attached task")

    def stop(self):
        if self.guarded:
            with self.wg_mu:
                self.stopping.close()
        else:
            self.stopping.close()
        self.wg.wait()


def _scenario(guarded: bool):
    def main():
        s = _Server(guarded)
        s.go_attach(lambda: gosim.sleep(1))  # a tracked task still running at shutdown

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
