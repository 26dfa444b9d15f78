"""DR-01: client-go leader election: ``IsLeader`` reads ``observedRecord`` while the renew loop writes it.

kubernetes/kubernetes PR #97419 "Fix the data race in the leaderelection package" (the same
field was reported in issue #87898 from ``maybeReportTransition``). ``go test -race`` in a
user's CI: ``(*LeaderElector).IsLeader`` (leaderelection.go:233 in client-go v0.19.6) read
``le.observedRecord.HolderIdentity`` without a lock while ``(*LeaderElector).tryAcquireOrRenew``
(leaderelection.go:365), run by the goroutine ``renew`` starts for every poll
(``renew.func1.1``), assigned ``le.observedRecord``. Nothing crashes: a plain struct field is
written by one goroutine and read by another with no happens-before between them.

Port: ``LeaderElector.observed_record`` is a ``gosim.Shared`` field (upstream's plain
``observedRecord``). The renew loop polls every ``RETRY_PERIOD`` virtual seconds and waits for
its ``tryAcquireOrRenew`` goroutine (upstream's ``RenewDeadline`` timeout select is left out:
the lease API never hangs here). A health-check goroutine calls ``is_leader`` as a caller of
the public API does. Fixed (the PR): ``observedRecordLock`` guards ``set_observed_record`` and
``get_observed_record``, which ``is_leader`` uses.

Go lines: client-go@c36b96a74bd5d233e22f83bf8ab2968016010eab tools/leaderelection/leaderelection.go
(the parent of the fix's merge c71768cb9189b4e5b90dbb528b0b9c8d64ca7da4; the lines this port cites are
those of v0.19.6 too). The fix's accessors cite the merge's file; ``# :N`` comments cite buggy lines.
"""

from __future__ import annotations

from fuzzfarm import gosim
from fuzzfarm.gosim import go_func, not_ported

ID = "DR-01"
TITLE = "client-go leaderelection: IsLeader reads observedRecord while tryAcquireOrRenew writes it"
SOURCE = "https://github.com/kubernetes/kubernetes/pull/97419"
KIND = "data race"
KINDS = (KIND,)
EXC_CLASS = None
DEPTH = 0
RUN_KW = {"check_leaks": True}

RETRY_PERIOD = 2.0
IDENTITY = "node-a"


class LeaderElector:
    """``leaderelection.LeaderElector`` (the fields this race is about)."""

    observed_record = gosim.Shared()  # Go: observedRecord rl.LeaderElectionRecord
    observed_time = gosim.Shared()    # Go: observedTime time.Time

    @go_func("leaderelection.NewLeaderElector", "leaderelection.go:76")
    def __init__(self, fixed: bool):
        self.fixed = fixed
        self.observed_record = {"holder_identity": "", "leader_transitions": 0}
        self.observed_time = 0.0
        self.observed_record_lock = gosim.Mutex("observedRecordLock") if fixed else None
        self.lease = {"holder_identity": IDENTITY, "leader_transitions": 1}  # the Lease object on the API server

    # -- the fix's accessors (leaderelection.go after PR #97419)
    @go_func("LeaderElector.setObservedRecord", "leaderelection.go:403")
    def set_observed_record(self, record: dict) -> None:
        """Go: ``(*LeaderElector).setObservedRecord``."""
        with self.observed_record_lock:
            self.observed_record = record
            self.observed_time = gosim.now()

    @go_func("LeaderElector.getObservedRecord", "leaderelection.go:413")
    def get_observed_record(self) -> dict:
        """Go: ``(*LeaderElector).getObservedRecord``."""
        with self.observed_record_lock:
            return self.observed_record

    @go_func("LeaderElector.IsLeader", "leaderelection.go:232")
    def is_leader(self) -> bool:
        """Go: ``(*LeaderElector).IsLeader`` (leaderelection.go:233 in v0.19.6)."""
        if self.fixed:
            return self.get_observed_record()["holder_identity"] == IDENTITY
        return self.observed_record["holder_identity"] == IDENTITY  # :233 the unlocked read

    @go_func("LeaderElector.tryAcquireOrRenew", "leaderelection.go:312")
    def try_acquire_or_renew(self) -> bool:
        """Go: ``(*LeaderElector).tryAcquireOrRenew``: Get the lease, update it, record what was seen."""
        gosim.gosched()  # :322 Lock.Get: a round trip to the API server
        old = dict(self.lease)
        record = {"holder_identity": IDENTITY, "leader_transitions": old["leader_transitions"]}
        gosim.gosched()  # :360 Lock.Update
        self.lease = record
        if self.fixed:
            self.set_observed_record(record)
        else:
            self.observed_record = record  # :365 the unlocked write
            self.observed_time = gosim.now()  # :366
        return True

    @go_func("LeaderElector.renew", "leaderelection.go:260")
    def renew(self, ctx: gosim.Context) -> None:
        """Go: ``(*LeaderElector).renew``: every RetryPeriod, poll tryAcquireOrRenew in a new goroutine."""
        while ctx.err() is None:  # :263 wait.Until
            done = gosim.Chan(1, name="done")

            @go_func("LeaderElector.renew.func1.1", "leaderelection.go:266")
            def poll():  # renew.func1.1: PollImmediateUntil's condition
                try:
                    done.send(self.try_acquire_or_renew())  # :267
                finally:
                    done.close()

            gosim.go(poll, name="renew.func1.1")
            done.recv()
            idx, _, _ = gosim.select(gosim.recv_case(ctx.done()), gosim.recv_case(gosim.after(RETRY_PERIOD)))
            if idx == 0:
                return


@not_ported("builds the scenario's main for one variant")
def _scenario(fixed: bool):
    @not_ported("scenario driver: a process that runs the elector and a health check, then stops")
    def main():
        le = LeaderElector(fixed)
        ctx, cancel = gosim.with_cancel(gosim.background())
        wg = gosim.WaitGroup("elector")
        wg.go(le.renew, ctx)

        @not_ported("test double: a caller of the public API")
        def health_check():  # a caller of the public API (e.g. a /healthz handler)
            for _ in range(3):
                le.is_leader()
                gosim.sleep(1.5)

        wg.go(health_check)
        gosim.sleep(5)
        cancel()
        wg.wait()

    return main


buggy = _scenario(fixed=False)
fixed = _scenario(fixed=True)
buggy.__doc__ = "The scenario before the upstream fix (fails under some schedule; see KINDS)."
fixed.__doc__ = "The scenario after the upstream fix (never fails)."
