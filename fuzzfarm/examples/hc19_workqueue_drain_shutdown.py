"""HC-19: client-go's workqueue loses a ShutDown that lands inside ShutDownWithDrain's wait loop.

kubernetes/kubernetes PR #119554 "client-go workqueue: fix shutdown race / test flake" (commit
2b12df56, published to client-go as e9b0103a). Ported from ``util/workqueue/queue.go`` at the
parent of that commit (buggy) and at it (fixed); ``# :N`` comments are lines of that file in
the matching version. The scenario is upstream's ``TestForceQueueShutdownUsingShutDown``,
the test that flaked.

D runs ``ShutDownWithDrain``: it marks the queue draining and shut down, then loops while
``isProcessing() && shouldDrain()``, calling ``waitForProcessing``, which waits on the cond
when items are still being processed. Each of the three helpers takes and releases the cond's
lock on its own. The main goroutine, a second SIGTERM, calls ``ShutDown`` to force the exit:
it clears ``drain`` and broadcasts. Two items were taken by workers that will never call
``Done``. Depth 3, all three must hold:

1. main's ``Get`` loop sees the queue shutting down (after D's ``shutdown``), so main calls
   ``ShutDown``;
2. ``ShutDown``'s ``setDrain(false)`` comes after D's ``shouldDrain()`` read ``true``;
3. ``ShutDown``'s broadcast comes before D's ``waitForProcessing`` takes the lock, so D's
   ``Wait`` starts after the only wake-up it would get.

2 and 3 together: the whole of ``ShutDown`` (two lock sections) runs in the gap between two
consecutive lock sections of D, with no blocking operation in that gap. D then waits forever
(``waitForProcessing`` rechecks the length but not ``drain``), and main waits for D:
``deadlock``.

Fixed (#119554): ``ShutDownWithDrain`` holds the lock from its shutdown to its ``Wait`` and
loops on ``processing.len() != 0 && drain`` around ``Wait``, so a ``ShutDown`` either comes
before the check or wakes the wait.
"""

from __future__ import annotations

from fuzzfarm import gosim
from fuzzfarm.gosim import go_func, not_ported

ID = "HC-19"
TITLE = "client-go workqueue ShutDownWithDrain vs ShutDown: the forced shutdown's broadcast is lost"
SOURCE = "https://github.com/kubernetes/kubernetes/pull/119554 (commit 2b12df56)"
KIND = "deadlock"
KINDS = (KIND,)
EXC_CLASS = None
DEPTH = 3
HARD = True  # tests in tests/gosim/test_hard_cases.py, benchmark in benchmarks/hard_cases.py
RUN_KW = {"check_leaks": True}


class _Type:
    """``workqueue.Type`` (queue.go): the queue, the dirty and processing sets, one cond."""

    @go_func("newQueue", "queue.go:93")
    def __init__(self):
        self.queue = []
        self.dirty = set()
        self.processing = set()
        self.cond = gosim.Cond(gosim.Mutex("cond.L"), name="cond")
        self.shutting_down = False
        self.drain = False

    @go_func("Type.Add", "queue.go:163")
    def add(self, item):
        self.cond.L.lock()  # :164
        try:
            if self.shutting_down or item in self.dirty:  # :166, :169
                return
            self.dirty.add(item)  # :175
            if item in self.processing:  # :176
                return
            self.queue.append(item)  # :180
            self.cond.signal()  # :181
        finally:
            self.cond.L.unlock()  # :165 defer

    @go_func("Type.Get", "queue.go:196")
    def get(self):
        self.cond.L.lock()  # :197
        try:
            while not self.queue and not self.shutting_down:  # :199
                self.cond.wait()  # :200
            if not self.queue:  # :202
                return None, True  # :204
            item = self.queue.pop(0)  # :207-210
            self.processing.add(item)  # :214
            self.dirty.discard(item)  # :215
            return item, False
        finally:
            self.cond.L.unlock()  # :198 defer

    # ---- before #119554
    @go_func("Type.ShutDown", "queue.go:240")
    def shut_down_buggy(self):
        self.set_drain(False)  # :241
        self.shutdown()  # :242

    @go_func("Type.ShutDownWithDrain", "queue.go:254")
    def shut_down_with_drain_buggy(self):
        self.set_drain(True)  # :255
        self.shutdown()  # :256
        while self.is_processing() and self.should_drain():  # :257
            self.wait_for_processing()  # :258

    @go_func("Type.isProcessing", "queue.go:264")
    def is_processing(self):
        self.cond.L.lock()  # :265
        try:
            return len(self.processing) != 0  # :267
        finally:
            self.cond.L.unlock()  # :266 defer

    @go_func("Type.waitForProcessing", "queue.go:272")
    def wait_for_processing(self):
        self.cond.L.lock()  # :273
        try:
            if len(self.processing) == 0:  # :279
                return
            self.cond.wait()  # :282
        finally:
            self.cond.L.unlock()  # :274 defer

    @go_func("Type.setDrain", "queue.go:285")
    def set_drain(self, should_drain):
        self.cond.L.lock()  # :286
        try:
            self.drain = should_drain  # :288
        finally:
            self.cond.L.unlock()  # :287 defer

    @go_func("Type.shouldDrain", "queue.go:291")
    def should_drain(self):
        self.cond.L.lock()  # :292
        try:
            return self.drain  # :294
        finally:
            self.cond.L.unlock()  # :293 defer

    @go_func("Type.shutdown", "queue.go:297")
    def shutdown(self):
        self.cond.L.lock()  # :298
        try:
            self.shutting_down = True  # :300
            self.cond.broadcast()  # :301
        finally:
            self.cond.L.unlock()  # :299 defer

    # ---- after #119554 (the fixed file's lines)
    @go_func("Type.ShutDown", "queue.go:240")
    def shut_down_fixed(self):
        self.cond.L.lock()  # :241
        try:
            self.drain = False  # :244
            self.shutting_down = True  # :245
            self.cond.broadcast()  # :246
        finally:
            self.cond.L.unlock()  # :242 defer

    @go_func("Type.ShutDownWithDrain", "queue.go:258")
    def shut_down_with_drain_fixed(self):
        self.cond.L.lock()  # :259
        try:
            self.drain = True  # :262
            self.shutting_down = True  # :263
            self.cond.broadcast()  # :264
            while len(self.processing) != 0 and self.drain:  # :266
                self.cond.wait()  # :267
        finally:
            self.cond.L.unlock()  # :260 defer


# ---------------------------------------------------------------------------- the scenario
@not_ported("builds the scenario's main for one variant")
def _scenario(fixed: bool):
    @not_ported("scenario driver: queue_test.go TestForceQueueShutdownUsingShutDown")
    def main():
        q = _Type()
        q.add("foo")
        q.add("bar")
        q.get()  # two workers took an item each and are stuck: Done is never called
        q.get()
        finished = gosim.WaitGroup("finishedWG")
        finished.add(1)
        drain = q.shut_down_with_drain_fixed if fixed else q.shut_down_with_drain_buggy

        @not_ported("scenario driver: the test's goroutine calling ShutDownWithDrain")
        def first_sigterm():
            drain()
            finished.done()

        gosim.go(first_sigterm, name="D.ShutDownWithDrain")
        shutting_down = False
        while not shutting_down:  # wait until ShutDownWithDrain has started
            _, shutting_down = q.get()
        (q.shut_down_fixed if fixed else q.shut_down_buggy)()  # the second SIGTERM forces it
        finished.wait()

    return main


buggy = _scenario(fixed=False)
fixed = _scenario(fixed=True)
buggy.__doc__ = "The scenario before the upstream fix (fails under some schedule; see KINDS)."
fixed.__doc__ = "The scenario after the upstream fix (never fails)."
