"""gosim models of the Kubernetes packages ported code calls most: apimachinery's
``k8s.io/apimachinery/pkg/util/wait`` and client-go's ``k8s.io/client-go/util/workqueue``
(registered in :mod:`fuzzfarm.goport.models`; docs/PORT.md#models).

Each function follows upstream's code path step by step, so its scheduling points (channel
operations, timers, the queue's lock and cond) are upstream's and happen-before runs where Go's
memory model puts it; ``# :N`` cites the upstream line. Upstream: apimachinery at
eed236ceee2c19c2753a3d93ac0631dc20750454 (``pkg/util/wait``: backoff.go, loop.go, poll.go,
timer.go, wait.go, error.go), client-go at 32ce75a7d6bc6960fd048d3d1e3b34185418d8c8
(``util/workqueue/queue.go``). What the hand ports model already (the workqueue ``Type`` of
``fuzzfarm.ports.clusterloader2.worker_queue`` and ``fuzzfarm.examples.hc19``, the poller of
``fuzzfarm.examples.hc11``) is the same upstream code; a port cannot import them (ports and
goport are separate layers), so the models are written here against the current upstream.

Durations are int nanoseconds, as everywhere in a generated port; the virtual clock is
seconds (``rt.NS``). Left out: ``runtime.HandleCrash`` around the condition (it re-panics by
default, so a panic goes on as in Go; only its log line is missing), metrics (upstream starts
no goroutine for the default no-op metrics) and the clock injection of tests. Jitter
(``rand.Float64`` in Go) is a schedule decision among 0, 1/4, 1/2 and 3/4 of the maximum: every
value is one Go can draw, so no failure is invented, though Go can draw others.
"""

from __future__ import annotations

import weakref

from fuzzfarm import gosim
from fuzzfarm.gosim import go_func, not_ported, runtime as _runtime

from . import rt

WAIT = "k8s.io/apimachinery/pkg/util/wait"
WORKQUEUE = "k8s.io/client-go/util/workqueue"
JITTER_CHOICES = (0.0, 0.25, 0.5, 0.75)  # rand.Float64() as a schedule decision


def _secs(ns: int) -> float:
    return ns * rt.NS


class _Interrupted(gosim.GoError):
    """error.go:76 ``errInterrupted``: ``Error()`` is its cause's text."""

    def error(self) -> str:
        return str(self)

    def __eq__(self, other):
        return self is other

    __hash__ = gosim.GoError.__hash__


ERR_WAIT_TIMEOUT = _Interrupted("timed out waiting for the condition")  # error.go:28


_never: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


@not_ported("wait.NeverStop (wait.go:40): a package var, one channel per run as Go makes one per process")
def never_stop() -> gosim.Chan:
    r = _runtime.current_runtime()
    ch = _never.get(r)
    if ch is None:
        ch = _never[r] = gosim.Chan(0, name="wait.NeverStop")
    return ch


class ChannelContext:
    """wait.go:128 ``channelContext``: done when ``stop_ch`` is closed, never cancelled otherwise.
    Not a gosim Context: it cannot be the parent of ``context.WithCancel`` in a port."""

    def __init__(self, stop_ch):
        self.stop_ch = stop_ch

    def done(self):
        return self.stop_ch  # wait.go:132

    @go_func(f"{WAIT}.channelContext.Err", "wait.go:133")
    def err(self):
        idx, _, _ = gosim.select(gosim.recv_case(self.stop_ch), default=True)  # :134
        return gosim.CANCELED if idx == 0 else None

    def deadline(self):
        return None  # wait.go:141

    def value(self, key):
        return None  # wait.go:142


@go_func(f"{WAIT}.ContextForChannel", "wait.go:120")
def context_for_channel(parent_ch) -> ChannelContext:
    return ChannelContext(parent_ch)


@go_func(f"{WAIT}.Jitter", "wait.go:92")
def jitter(duration: int, max_factor: float) -> int:
    if max_factor <= 0.0:
        max_factor = 1.0  # :94
    r = _runtime.current_runtime()
    f = JITTER_CHOICES[r.choose_index(len(JITTER_CHOICES), "wait.Jitter")]
    return duration + int(f * max_factor * duration)  # :96


# --- Backoff (backoff.go) and the timers of timer.go --------------------------------------------

@go_func(f"{WAIT}.delay", "backoff.go:98")
def _delay(steps: int, duration: int, cap: int, factor: float, jitter_: float):
    if steps < 1:  # :100
        if jitter_ > 0:
            return jitter(duration, jitter_), duration, 0
        return duration, duration, 0
    steps -= 1  # :106
    if factor != 0:  # :109
        nxt = int(duration * factor)
        if cap > 0 and nxt > cap:
            nxt, steps = cap, 0
    else:
        nxt = duration
    if jitter_ > 0:  # :119
        duration = jitter(duration, jitter_)
    return duration, nxt, steps


class Backoff:
    """backoff.go:30 ``wait.Backoff``: fields race-checked as a Go struct's plain fields are."""

    duration = gosim.Shared(0)
    factor = gosim.Shared(0.0)
    jitter = gosim.Shared(0.0)
    steps = gosim.Shared(0)
    cap = gosim.Shared(0)
    _go_fields_ = ("duration", "factor", "jitter", "steps", "cap")

    @not_ported("a wait.Backoff composite literal: Go writes every field")
    def __init__(self, *, duration: int = 0, factor: float = 0.0, jitter: float = 0.0, steps: int = 0, cap: int = 0):
        self.duration, self.factor, self.jitter, self.steps, self.cap = duration, factor, jitter, steps, cap

    def _copy_(self) -> Backoff:
        return Backoff(duration=self.duration, factor=self.factor, jitter=self.jitter, steps=self.steps, cap=self.cap)

    def _set_(self, v: Backoff) -> None:
        self.duration, self.factor, self.jitter, self.steps, self.cap = v.duration, v.factor, v.jitter, v.steps, v.cap

    @go_func(f"{WAIT}.(*Backoff).Step", "backoff.go:58")
    def step(self) -> int:
        d, self.duration, self.steps = _delay(self.steps, self.duration, self.cap, self.factor, self.jitter)  # :63
        return d

    @go_func(f"{WAIT}.Backoff.DelayFunc", "backoff.go:70")
    def delay_func(self):
        st = {"steps": self.steps, "duration": self.duration}
        cap, factor, jit = self.cap, self.factor, self.jitter

        @go_func(f"{WAIT}.Backoff.DelayFunc.func1", "backoff.go:77")
        def fn() -> int:
            d, st["duration"], st["steps"] = _delay(st["steps"], st["duration"], cap, factor, jit)
            return d
        return fn

    @go_func(f"{WAIT}.Backoff.Timer", "backoff.go:87")
    def timer(self):
        if self.steps > 1 or self.jitter != 0:  # :88
            return _VariableTimer(self.delay_func())
        if self.duration > 0:  # :91
            return _FixedTimer(self.duration)
        return _NoopTimer()


class _NoopTimer:
    """timer.go:44: a closed channel."""

    def __init__(self):
        self.closed_ch = gosim.Chan(0, name="wait.noopTimer")
        gosim.close(self.closed_ch)  # :52

    def c(self):
        return self.closed_ch

    def next(self) -> None:
        pass

    def stop(self) -> None:
        pass


class _VariableTimer:
    """timer.go:62: a timer made at the first ``C()``, reset by ``Next()`` to the next delay."""

    def __init__(self, fn):
        self.fn, self.t = fn, None

    @go_func(f"{WAIT}.(*variableTimer).C", "timer.go:68")
    def c(self):
        if self.t is None:
            self.t = gosim.new_timer(_secs(self.fn()), name="wait.variableTimer")  # :71
        return self.t.c

    @go_func(f"{WAIT}.(*variableTimer).Next", "timer.go:75")
    def next(self) -> None:
        if self.t is None:
            return
        self.t.reset(_secs(self.fn()))  # :80

    @go_func(f"{WAIT}.(*variableTimer).Stop", "timer.go:82")
    def stop(self) -> None:
        if self.t is None:
            return
        self.t.stop()
        self.t = None


class _FixedTimer:
    """timer.go:90: a ticker made at the first ``C()``."""

    def __init__(self, interval: int):
        self.interval, self.t = interval, None

    @go_func(f"{WAIT}.(*fixedTimer).C", "timer.go:96")
    def c(self):
        if self.t is None:
            self.t = gosim.new_ticker(_secs(self.interval), name="wait.fixedTimer")  # :98
        return self.t.c

    def next(self) -> None:
        pass  # timer.go:102: no-op for fixed timers

    @go_func(f"{WAIT}.(*fixedTimer).Stop", "timer.go:105")
    def stop(self) -> None:
        if self.t is None:
            return
        self.t.stop()
        self.t = None


# --- Until and its family (backoff.go) ---------------------------------------------------------

class _JitteredBackoffManager:
    """backoff.go:411 ``jitteredBackoffManagerImpl``: one timer, reset on every ``Backoff()``."""

    def __init__(self, duration: int, jitter_: float):
        self.duration, self.jitter, self.backoff_timer = duration, jitter_, None

    @go_func(f"{WAIT}.(*jitteredBackoffManagerImpl).Backoff", "backoff.go:452")
    def backoff(self):
        d = jitter(self.duration, self.jitter) if self.jitter > 0.0 else self.duration  # :453 getNextBackoff
        if self.backoff_timer is None:
            self.backoff_timer = gosim.new_timer(_secs(d), name="wait.backoffTimer")  # :455
        else:
            self.backoff_timer.reset(_secs(d))  # :457
        return self.backoff_timer


@go_func(f"{WAIT}.BackoffUntilWithContext", "backoff.go:240")
def backoff_until_with_context(ctx, f, backoff, sliding: bool) -> None:
    t = None
    while True:
        idx, _, _ = gosim.select(gosim.recv_case(ctx.done()), default=True)  # :243
        if idx == 0:
            return
        if not sliding:
            t = backoff.backoff()  # :250
        f(ctx)  # :255 (runtime.HandleCrashWithContext re-panics)
        if sliding:
            t = backoff.backoff()  # :259
        idx, _, _ = gosim.select(gosim.recv_case(ctx.done()), gosim.recv_case(t.c))  # :266
        if idx == 0:
            if not t.stop():  # :268
                rt.recv(t.c, None)
            return


@go_func(f"{WAIT}.JitterUntilWithContext", "backoff.go:222")
def jitter_until_with_context(ctx, f, period: int, jitter_factor: float, sliding: bool) -> None:
    backoff_until_with_context(ctx, f, _JitteredBackoffManager(period, jitter_factor), sliding)


@go_func(f"{WAIT}.JitterUntil", "backoff.go:209")
def jitter_until(f, period: int, jitter_factor: float, sliding: bool, stop_ch) -> None:
    @go_func(f"{WAIT}.BackoffUntil.func1", "backoff.go:233")
    def with_ctx(ctx):
        f()
    backoff_until_with_context(ChannelContext(stop_ch), with_ctx, _JitteredBackoffManager(period, jitter_factor), sliding)


@go_func(f"{WAIT}.Until", "backoff.go:162")
def until(f, period: int, stop_ch) -> None:
    jitter_until(f, period, 0.0, True, stop_ch)


@go_func(f"{WAIT}.UntilWithContext", "backoff.go:171")
def until_with_context(ctx, f, period: int) -> None:
    jitter_until_with_context(ctx, f, period, 0.0, True)


@go_func(f"{WAIT}.NonSlidingUntil", "backoff.go:183")
def non_sliding_until(f, period: int, stop_ch) -> None:
    jitter_until(f, period, 0.0, False, stop_ch)


@go_func(f"{WAIT}.NonSlidingUntilWithContext", "backoff.go:193")
def non_sliding_until_with_context(ctx, f, period: int) -> None:
    jitter_until_with_context(ctx, f, period, 0.0, False)


@go_func(f"{WAIT}.Forever", "wait.go:79")
def forever(f, period: int) -> None:
    until(f, period, never_stop())


@go_func(f"{WAIT}.ExponentialBackoff", "backoff.go:475")
def exponential_backoff(backoff: Backoff, condition):
    while backoff.steps > 0:  # :476
        ok, err = condition()  # :477 runConditionWithCrashProtection
        if err is not None or ok:
            return err
        if backoff.steps == 1:  # :480
            break
        gosim.sleep(_secs(backoff.step()))  # :483
    return ERR_WAIT_TIMEOUT


# --- polling (loop.go, poll.go, wait.go) --------------------------------------------------------

@go_func(f"{WAIT}.loopConditionUntilContext", "loop.go:37")
def loop_condition_until_context(ctx, t, immediate: bool, sliding: bool, condition):
    try:
        time_ch = None
        done_ch = ctx.done()  # :41
        if not sliding:
            time_ch = t.c()  # :44
        if immediate:  # :50
            ok, err = condition(ctx)  # :53
            if err is not None or ok:
                return err
        if sliding:
            time_ch = t.c()  # :60
        while True:
            idx, _, _ = gosim.select(gosim.recv_case(done_ch), gosim.recv_case(time_ch))  # :66
            if idx == 0:
                return ctx.err()
            err = ctx.err()  # :78
            if err is not None:
                return err
            if not sliding:
                t.next()  # :83
            ok, err = condition(ctx)  # :87
            if err is not None or ok:
                return err
            if sliding:
                t.next()  # :92
    finally:
        t.stop()  # :38 defer


@go_func(f"{WAIT}.PollUntilContextCancel", "poll.go:32")
def poll_until_context_cancel(ctx, interval: int, immediate: bool, condition):
    return loop_condition_until_context(ctx, Backoff(duration=interval).timer(), immediate, False, condition)


@go_func(f"{WAIT}.PollUntilContextTimeout", "poll.go:45")
def poll_until_context_timeout(ctx, interval: int, timeout: int, immediate: bool, condition):
    deadline_ctx, deadline_cancel = gosim.with_timeout(ctx, _secs(timeout))  # :46
    try:
        return loop_condition_until_context(deadline_ctx, Backoff(duration=interval).timer(), immediate, False, condition)
    finally:
        deadline_cancel()  # :47 defer


@go_func(f"{WAIT}.poller", "poll.go:276")
def _poller(interval: int, timeout: int):
    @go_func(f"{WAIT}.poller.func1", "poll.go:277")
    def wait_fn(ctx):
        ch = gosim.Chan(0, name="wait.poller")  # :278

        @go_func(f"{WAIT}.poller.func1.1", "poll.go:280")
        def run():
            tick = gosim.new_ticker(_secs(interval), name="wait.poller tick")  # :283
            timer = gosim.new_timer(_secs(timeout), name="wait.poller after") if timeout != 0 else None  # :291
            after = timer.c if timer is not None else None
            try:
                while True:
                    idx, _, _ = gosim.select(gosim.recv_case(tick.c), gosim.recv_case(after),
                                             gosim.recv_case(ctx.done()))  # :297
                    if idx == 0:
                        gosim.select(gosim.send_case(ch, None), default=True)  # :301 a tick the consumer misses is dropped
                    else:
                        return
            finally:
                if timer is not None:
                    timer.stop()  # :293 defer
                tick.stop()  # :284 defer
                gosim.close(ch)  # :281 defer
        gosim.go(run, name="wait.poller")
        return ch
    return wait_fn


@go_func(f"{WAIT}.waitForWithContext", "wait.go:205")
def _wait_for_with_context(ctx, wait, fn):
    wait_ctx, cancel = gosim.with_cancel(gosim.background())  # :206
    try:
        c = wait(wait_ctx)  # :208
        while True:
            idx, _, is_open = gosim.select(gosim.recv_case(c), gosim.recv_case(ctx.done()))  # :210
            if idx == 1:
                return ERR_WAIT_TIMEOUT  # :226
            ok, err = fn(ctx)  # :212
            if err is not None:
                return err
            if ok:
                return None
            if not is_open:
                return ERR_WAIT_TIMEOUT  # :220
    finally:
        cancel()  # :207 defer


@go_func(f"{WAIT}.poll", "poll.go:243")
def _poll(ctx, immediate: bool, wait, condition):
    if immediate:
        done, err = condition(ctx)  # :245
        if err is not None:
            return err
        if done:
            return None
    idx, _, _ = gosim.select(gosim.recv_case(ctx.done()), default=True)  # :254
    if idx == 0:
        return ERR_WAIT_TIMEOUT  # :258
    return _wait_for_with_context(ctx, wait, condition)  # :260


@go_func(f"{WAIT}.PollImmediateUntilWithContext", "poll.go:199")
def poll_immediate_until_with_context(ctx, interval: int, condition):
    return _poll(ctx, True, _poller(interval, 0), condition)


@go_func(f"{WAIT}.PollImmediateUntil", "poll.go:186")
def poll_immediate_until(interval: int, condition, stop_ch):
    @go_func(f"{WAIT}.ConditionFunc.WithContext.func1", "wait.go:112")
    def with_ctx(ctx):
        return condition()
    return poll_immediate_until_with_context(ChannelContext(stop_ch), interval, with_ctx)


# --- workqueue (client-go util/workqueue/queue.go) ----------------------------------------------

class Type:
    """queue.go ``Typed[any]`` (``workqueue.Type``, what ``New`` returns): a FIFO of items, the
    ``dirty`` set (to be processed) and the ``processing`` set, one ``sync.Cond`` on a mutex.
    Items are kept in Python sets: strings, numbers and pointers compare as in Go; a struct
    *value* item would compare by identity here, by value in Go (use keys or pointers)."""

    @go_func(f"{WORKQUEUE}.newQueue", "queue.go:163")
    def __init__(self, name: str = ""):
        self.queue: list = []
        self.dirty: set = set()
        self.processing: set = set()
        self.cond = gosim.Cond(gosim.Mutex(f"workqueue{'.' + name if name else ''}.cond.L"), name="workqueue.cond")
        self.shutting_down_ = False
        self.drain = False

    @go_func(f"{WORKQUEUE}.(*Typed[...]).Add", "queue.go:227")
    def add(self, item) -> None:
        self.cond.L.lock()  # :228
        try:
            if self.shutting_down_:  # :230
                return
            if item in self.dirty:  # :233 (Touch is a no-op for the default queue)
                return
            self.dirty.add(item)  # :244
            if item in self.processing:  # :245
                return
            self.queue.append(item)  # :249
            self.cond.signal()  # :250
        finally:
            self.cond.L.unlock()  # :229 defer

    @go_func(f"{WORKQUEUE}.(*Typed[...]).Len", "queue.go:256")
    def len_(self) -> int:
        with self.cond.L:
            return len(self.queue)

    @go_func(f"{WORKQUEUE}.(*Typed[...]).Get", "queue.go:265")
    def get(self):
        self.cond.L.lock()  # :266
        try:
            while not self.queue and not self.shutting_down_:  # :268
                self.cond.wait()
            if not self.queue:
                return None, True  # :273
            item = self.queue.pop(0)  # :276
            self.processing.add(item)  # :280
            self.dirty.discard(item)  # :281
            return item, False
        finally:
            self.cond.L.unlock()  # :267 defer

    @go_func(f"{WORKQUEUE}.(*Typed[...]).Done", "queue.go:289")
    def done(self, item) -> None:
        self.cond.L.lock()  # :290
        try:
            self.processing.discard(item)  # :295
            if item in self.dirty:  # :296
                self.queue.append(item)
                self.cond.signal()
            elif not self.processing:  # :299
                self.cond.signal()
        finally:
            self.cond.L.unlock()  # :291 defer

    @go_func(f"{WORKQUEUE}.(*Typed[...]).ShutDown", "queue.go:307")
    def shut_down(self) -> None:
        with self.cond.L:  # :313
            self.drain = False  # :316
            self.shutting_down_ = True
            self.cond.broadcast()  # :318

    @go_func(f"{WORKQUEUE}.(*Typed[...]).ShutDownWithDrain", "queue.go:327")
    def shut_down_with_drain(self) -> None:
        with self.cond.L:  # :332
            self.drain = True  # :335
            self.shutting_down_ = True
            self.cond.broadcast()  # :337
            while self.processing and self.drain:  # :339
                self.cond.wait()

    @go_func(f"{WORKQUEUE}.(*Typed[...]).ShuttingDown", "queue.go:344")
    def shutting_down(self) -> bool:
        with self.cond.L:
            return self.shutting_down_


@go_func(f"{WORKQUEUE}.New", "queue.go:104")
def new() -> Type:
    return Type()


@go_func(f"{WORKQUEUE}.NewNamed", "queue.go:133")
def new_named(name: str) -> Type:
    return Type(name)
