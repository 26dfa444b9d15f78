"""DR-03: controller-runtime ``DelegatingLogger``: ``V()`` reads the logger ``Fulfill`` replaces.

kubernetes-sigs/controller-runtime issue #1359 "Data race in the delegating logger", fixed by
PR #1361 (after PR #1339 for issue #1337). ``pkg/log.DelegatingLogger`` embedded a
``logr.Logger`` that ``(*loggerPromise).Fulfill`` (deleg.go:76 in v0.8.1) replaced when the real
logger arrived (``SetLogger``, or controller-runtime's own fallback goroutine that fulfils with a
null logger after 30 seconds), while any goroutine holding the delegating logger called its
promoted methods (``V``, ``Info``, ``WithName``) and read the embedded logger without a lock.
The two accesses are typically 30 s apart; ``-race`` reports them anyway (PR #1339: "I didn't
expect the race detector to take Sleep into account" -- a sleep is no synchronisation).

Port: ``DelegatingLogger.logger`` is a ``gosim.Shared`` field (upstream's embedded
``logr.Logger``); ``eventually_fulfill`` stands for ``log.go``'s init goroutine (sleep, then
``Fulfill`` with a null logger); a controller goroutine logs through ``V(1).info`` now and
then. Fixed (PR #1361): a ``sync.RWMutex``; every logging method takes the read lock,
``fulfill`` the write lock.

Go lines: controller-runtime@9e78e653228851684b6b9cdabe5aae8559fe3722 (v0.8.1, the parent of the fix's
merge ad730f811ec6f6ceeb95c66270815f9af0b7af9e) pkg/log/deleg.go and pkg/log/log.go. At that commit
``loggerPromise.Fulfill`` already writes under the logger's mutex (:75, from PR #1339), and so does
the port's buggy writer; the reader (``V``, promoted) takes no lock, so a lock on one side only
orders nothing and the race stands. The fix turns the mutex into an RWMutex and read-locks it in
every logging method. Left out: ``log.go``'s ``loggerWasSetLock`` around the fallback's
``Fulfill`` (nobody else calls ``SetLogger`` in the scenario) and the child promises.
``v`` cites the fix's ``DelegatingLogger.V`` (deleg.go:151 at the merge): before the fix ``V`` was
the embedded ``logr.Logger``'s method, promoted, with no function of its own in deleg.go, and the
buggy controller reads the embedded logger itself, as Go's inlined wrapper does (the Go twin
under ``go test -race`` reports the read in its caller, ``TestScenario``; the port once reported
it in ``DelegatingLogger.V``, a frame Go does not have).
"""

from __future__ import annotations

from fuzzfarm import gosim
from fuzzfarm.gosim import go_func, not_ported

ID = "DR-03"
TITLE = "controller-runtime DelegatingLogger: V() reads the embedded logger while Fulfill replaces it"
SOURCE = "https://github.com/kubernetes-sigs/controller-runtime/pull/1361"
KIND = "data race"
KINDS = (KIND,)
EXC_CLASS = None
DEPTH = 0
RUN_KW = {"check_leaks": True}

FALLBACK_AFTER = 30.0  # log.go: fulfil with a null logger if SetLogger was not called


class _Sink:
    @not_ported("test double: a logr sink that records lines")
    def __init__(self, name: str):
        self.name = name
        self.lines: list = []

    @not_ported("test double: a logr sink that records lines")
    def info(self, msg: str) -> None:
        self.lines.append(msg)


class DelegatingLogger:
    """``log.DelegatingLogger`` (the fields this race is about)."""

    logger = gosim.Shared()  # Go: the embedded logr.Logger (after PR #1361: logger logr.Logger)

    @go_func("log.NewDelegatingLogger", "deleg.go:139")
    def __init__(self, fixed: bool):
        self.fixed = fixed
        # v0.8.1: lock sync.Mutex (deleg.go:91), taken by Fulfill and WithName/WithValues but not by the
        # promoted V/Info/Error/Enabled; the fix makes it an RWMutex that every method takes.
        self.lock = gosim.RWMutex("DelegatingLogger.lock") if fixed else gosim.Mutex("DelegatingLogger.lock")
        self.logger = _Sink("promise")  # a logger that only records until fulfilled
        self.fulfilled = False

    @go_func("DelegatingLogger.V", "deleg.go:151")
    def v(self, level: int) -> _Sink:
        """Go: ``DelegatingLogger.V`` of the fix (before it, V was the embedded logger's,
        promoted, and its read is the caller's: ``controller``)."""
        self.lock.rlock()
        try:
            return self.logger
        finally:
            self.lock.runlock()

    @go_func("loggerPromise.Fulfill", "deleg.go:65")
    def fulfill(self, actual: _Sink) -> None:
        """Go: ``(*DelegatingLogger).Fulfill`` -> ``(*loggerPromise).Fulfill`` (deleg.go:76 in v0.8.1)."""
        if not self.fulfilled:  # DelegatingLogger.Fulfill: if l.promise != nil (deleg.go:132)
            with self.lock:  # :75 the write side locks, before and after the fix
                self.logger = actual  # :76 p.logger.Logger = logger
                self.fulfilled = True  # :77 p.logger.promise = nil


@not_ported("builds the scenario's main for one variant")
def _scenario(fixed: bool):
    @not_ported("scenario driver: a process whose controller logs before SetLogger is called")
    def main():
        log = DelegatingLogger(fixed)
        wg = gosim.WaitGroup("log")

        @go_func("log.init.0.func1", "log.go:62")
        def eventually_fulfill():  # log.go init.0.func1
            gosim.sleep(FALLBACK_AFTER)  # :63
            log.fulfill(_Sink("null"))  # :67

        @not_ported("test double: a controller logging through the package logger (the twin's TestScenario)")
        def controller():  # e.g. an event handler logging as it adds watches
            for _ in range(3):
                # before the fix V is the embedded logger's, promoted: Go inlines the wrapper,
                # so the read of l.Logger is the caller's (`go test -race` on the twin reports
                # it at TestScenario, scenario_test.go:13, not in a V of DelegatingLogger)
                sink = log.v(1) if log.fixed else log.logger
                sink.info("adding handler")
                gosim.sleep(20.0)

        wg.go(eventually_fulfill)
        wg.go(controller)
        wg.wait()

    return main


buggy = _scenario(fixed=False)
fixed = _scenario(fixed=True)
buggy.__doc__ = "The scenario before the upstream fix (fails under some schedule; see KINDS)."
fixed.__doc__ = "The scenario after the upstream fix (never fails)."
