"""HC-20: client-go's sharedProcessor deadlocks when a resync distributes before the listeners start.

kubernetes/kubernetes issue #136049, fixed by PR #136509 "client-go informers: fix potential
deadlock" (published to client-go as 889b95a7). Ported from ``tools/cache/shared_informer.go``
at the parent of that commit (buggy) and at it (fixed), ``reflector.go`` at the parent, ``wait.Group`` from apimachinery ``pkg/util/wait/wait.go``;
``# :N`` comments are lines of those files.

``sharedIndexInformer.RunWithContext`` starts ``sharedProcessor.run`` (R) first (:576), then the
controller: its processing loop (C, ``HandleDeltas`` -> ``distribute``) and the reflector's
resync loop (S, a timer of ``resyncCheckPeriod``, 1 s here, then ``shouldResync``). Depth 3:

1. C's ``distribute`` takes ``listenersLock.RLock`` and blocks on the unbuffered
   ``addCh <- notification`` (:1023) of a listener whose ``pop`` R has not started yet;
2. the resync timer fires and S's ``shouldResync`` queues on ``listenersLock.Lock`` (:916)
   behind C's read lock: from then on new readers block (writer preference);
3. only then does R run: its ``listenersLock.RLock`` (:887) blocks behind the queued writer,
   so it never starts ``pop``, so C's send never completes, so S never gets the lock.

2 before 3 means R stays runnable but unscheduled until the resync timer fires: it needs R
starved for ``RESYNC_CHECK_PERIOD`` (1 virtual second), ten times the farm's 0.1 s realism
bound (docs/timing.md). In Go that takes a starved machine (GC, a full run queue, a loaded CI
host); upstream's test reproduces it with a ``time.Sleep`` at the start of ``run``. Everything
blocks with no timer pending: ``deadlock``.

Fixed (#136509): ``distribute`` waits on ``listenersRCond`` (a Cond on the read side of
``listenersLock``) until the listeners are started, releasing the read lock while it waits;
``run`` takes the write lock to start them and signals the cond.
"""

from __future__ import annotations

from fuzzfarm import gosim
from fuzzfarm.gosim import go_func, not_ported

ID = "HC-20"
TITLE = "client-go sharedProcessor distribute before run: read lock held across a send to an unstarted listener"
SOURCE = "https://github.com/kubernetes/kubernetes/issues/136049 (fix: PR #136509, client-go 889b95a7)"
KIND = "deadlock"
KINDS = (KIND,)
EXC_CLASS = None
DEPTH = 3
# The trigger is starvation (R runnable but unscheduled through a whole resync period), far
# over the 0.1 s realism bound: the bug is found by the runs that search without the bound
# and labelled with the starvation it needs (docs/timing.md).
NEEDS_STARVATION_S = 1.0
RUN_KW = {"check_leaks": True}
RESYNC_CHECK_PERIOD = 1.0  # the informer's resyncCheckPeriod, virtual seconds


class _ProcessorListener:
    """``processorListener`` (shared_informer.go): ``addCh`` unbuffered, ``nextCh`` unbuffered,
    a pending buffer between them (``pendingNotifications``)."""

    @go_func("newProcessListener", "shared_informer.go:1002")
    def __init__(self, handled: gosim.Chan):
        self.add_ch = gosim.Chan(0, "listener.addCh")
        self.next_ch = gosim.Chan(0, "listener.nextCh")
        self.handled = handled

    @go_func("processorListener.add", "shared_informer.go:1019")
    def add(self, notification):
        self.add_ch.send(notification)  # :1023

    @go_func("processorListener.pop", "shared_informer.go:1026")
    def pop(self):
        pending = []
        next_ch, notification = None, None
        try:
            while True:
                i, v, ok = gosim.select(gosim.send_case(next_ch, notification),  # :1034
                                        gosim.recv_case(self.add_ch))  # :1041
                if i == 0:  # dispatched
                    if pending:
                        notification = pending.pop(0)
                    else:
                        next_ch, notification = None, None
                    continue
                if not ok:  # :1042
                    return
                if notification is None:  # :1045
                    notification, next_ch = v, self.next_ch
                else:
                    pending.append(v)  # :1050
        finally:
            self.next_ch.close()  # :1028 defer close(p.nextCh)

    @go_func("processorListener.run", "shared_informer.go:1056")
    def run(self):
        while True:
            nxt, ok = self.next_ch.recv_ok()  # :1064 for next := range p.nextCh
            if not ok:
                return
            self.handled.send(nxt)  # the handler: OnAdd


class _SharedProcessor:
    """``sharedProcessor``: ``listenersLock`` (an RWMutex) guards ``listeners`` and
    ``listenersStarted``; the fixed form adds ``listenersRCond``."""

    @go_func("NewSharedIndexInformerWithOptions", "shared_informer.go:303")
    def __init__(self):
        self.listeners_started = False
        self.listeners_lock = gosim.RWMutex("listenersLock")
        self.listeners_r_cond = gosim.Cond(self.listeners_lock.rlocker(), name="listenersRCond")  # :307 (fixed)
        self.listeners: list[_ProcessorListener] = []
        self.wg = gosim.WaitGroup("processor.wg")

    @go_func("wait.Group.Start", "wait.go:68")
    def _start(self, f, name):
        self.wg.add(1)

        @go_func("wait.Group.Start.func1", "wait.go:70")
        def body():
            try:
                f()
            finally:
                self.wg.done()
        gosim.go(body, name=name)

    # ---- before #136509
    @go_func("sharedProcessor.distribute", "shared_informer.go:867")
    def distribute_buggy(self, obj):
        self.listeners_lock.rlock()  # :868
        try:
            for listener in self.listeners:  # :871
                listener.add(obj)  # :875 (a non-sync message goes to every listener)
        finally:
            self.listeners_lock.runlock()  # :869 defer

    @go_func("sharedProcessor.run", "shared_informer.go:885")
    def run_buggy(self, stop: gosim.Chan):
        self.listeners_lock.rlock()  # :887
        try:
            for listener in self.listeners:  # :889
                self._start(listener.run, "listener.run")  # :890
                self._start(listener.pop, "listener.pop")  # :891
            self.listeners_started = True  # :893
        finally:
            self.listeners_lock.runlock()  # :888 defer
        self._stop(stop)

    # ---- after #136509 (the fixed file's lines)
    @go_func("sharedProcessor.distribute", "shared_informer.go:872")
    def distribute_fixed(self, obj):
        self.listeners_lock.rlock()  # :873
        try:
            while not self.listeners_started and self.listeners:  # :880
                self.listeners_r_cond.wait()  # :881
            for listener in self.listeners:  # :884
                listener.add(obj)
        finally:
            self.listeners_lock.runlock()  # :874 defer

    @go_func("sharedProcessor.run", "shared_informer.go:902")
    def run_fixed(self, stop: gosim.Chan):
        self.listeners_lock.lock()  # :909
        try:
            for listener in self.listeners:  # :911
                self._start(listener.run, "listener.run")  # :912
                self._start(listener.pop, "listener.pop")  # :913
            self.listeners_started = True  # :915
            self.listeners_r_cond.signal()  # :916
        finally:
            self.listeners_lock.unlock()  # :910 defer
        self._stop(stop)

    @go_func("sharedProcessor.run", "shared_informer.go:885")
    def _stop(self, stop: gosim.Chan):
        stop.recv()  # :895 <-ctx.Done() (:918 fixed)
        self.listeners_lock.lock()  # :897
        try:
            for listener in self.listeners:
                listener.add_ch.close()  # :900 close(listener.addCh)
            self.listeners_started = False  # :908 (the fixed form then signals the cond, :934)
        finally:
            self.listeners_lock.unlock()  # :898 defer
        self.wg.wait()  # :910 (buggy), :936 (fixed)

    @go_func("sharedProcessor.shouldResync", "shared_informer.go:915")
    def should_resync(self):
        self.listeners_lock.lock()  # :916
        try:
            return False  # no listener's resync period is due (the loop, :921-931)
        finally:
            self.listeners_lock.unlock()  # :917 defer


@go_func("Reflector.startResync", "reflector.go:452")
def _start_resync(p: _SharedProcessor, stop: gosim.Chan):
    while True:
        resync = gosim.new_timer(RESYNC_CHECK_PERIOD, name="resyncCheckPeriod")  # :454 r.resyncChan()
        i, _, _ = gosim.select(gosim.recv_case(resync.c), gosim.recv_case(stop))  # :458-461
        if i == 1:
            resync.stop()  # :455-457 defer cleanup()
            return
        p.should_resync()  # :464 r.ShouldResync()
        resync.stop()  # :471 cleanup(), then a new timer (:472)


# ---------------------------------------------------------------------------- the scenario
@not_ported("builds the scenario's main for one variant")
def _scenario(fixed: bool):
    @not_ported("scenario driver: an informer with one handler, started, one object delivered, stopped")
    def main():
        p = _SharedProcessor()
        handled = gosim.Chan(0, "handled")
        p.listeners.append(_ProcessorListener(handled))  # AddEventHandler before Run
        stop = gosim.Chan(0, "stopCh")
        done = gosim.WaitGroup("informer")
        run = p.run_fixed if fixed else p.run_buggy
        distribute = p.distribute_fixed if fixed else p.distribute_buggy

        @not_ported("scenario driver: wait.Group.StartWithContext")
        def started(f, *args):
            @not_ported("scenario driver: the started goroutine's body")
            def body():
                f(*args)
                done.done()
            return body

        done.add(3)
        gosim.go(started(run, stop), name="processor.run")  # shared_informer.go:576, before the controller
        gosim.go(started(_start_resync, p, stop), name="reflector.startResync")
        gosim.go(started(distribute, "pod1"), name="controller.processLoop")  # HandleDeltas -> distribute
        handled.recv()  # the handler saw pod1
        stop.close()  # the informer is stopped
        done.wait()

    return main


buggy = _scenario(fixed=False)
fixed = _scenario(fixed=True)
buggy.__doc__ = "The scenario before the upstream fix (fails under some schedule; see KINDS)."
fixed.__doc__ = "The scenario after the upstream fix (never fails)."
