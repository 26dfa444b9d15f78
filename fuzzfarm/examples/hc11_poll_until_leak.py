"""HC-11: ``wait.PollUntil`` leaks its ticker goroutine when the caller's stop channel is long-lived.

kubernetes/kubernetes issue #71277, fixed by PR #71326 "Fix goroutine leak in
pkg/util/wait PollUntil()" (related: #14995/#15014, #44935, #70277). The poller goroutine P
ticks every interval and forwards ticks; it exits only when the caller's stop channel closes.
The caller passes the process-lifetime stop channel and returns as soon as the condition
holds, so P keeps running forever: a goroutine leak on every call, whatever the schedule.

Fixed: the helper derives a child stop channel and closes it when it returns.

Go lines: apimachinery@1b0702fe2927f82126da9c2ecf567f14676f6072 pkg/util/wait/wait.go (the last
commit before the issue was filed). The fix's own parent is not the buggy file: by the time #71326
merged, PR #70277 had made ``WaitFor`` close its own stop channel, which already ended the poller.
The fixed variant is that file plus the fix's own change, as of the fix commit
49fd9693305e0d8297fa7ff0f8ae762b9ed19430: ``contextForChannel`` and the new ``PollUntil`` (its
lines). The poller drops a tick the consumer is not ready for (``select`` with ``default``, :378),
so the leaked poller always waits in its outer select, as upstream's does.
"""

from __future__ import annotations

from fuzzfarm import gosim
from fuzzfarm.gosim import go_func, not_ported

ID = "HC-11"
TITLE = "wait.PollUntil leaks its poller goroutine"
SOURCE = "https://github.com/kubernetes/kubernetes/issues/71277 (fix PR #71326)"
KIND = "goroutine leak"
KINDS = (KIND,)
EXC_CLASS = None
DEPTH = 0
RUN_KW = {"check_leaks": True, "leak_grace": 10.0}

INTERVAL = 1.0


@go_func("wait.poller", "wait.go:353")
def _poller(interval):
    """``wait.poller(interval, 0)``: a WaitFunc whose goroutine forwards ticks until ``done`` closes."""

    @go_func("wait.poller.func1", "wait.go:354")
    def wait_func(done):
        ch = gosim.Chan(name="ticks")  # :355 unbuffered

        @go_func("wait.poller.func1.1", "wait.go:357")
        def poll():
            tick = gosim.new_ticker(interval)  # :360
            try:
                while True:  # timeout 0: no ``after`` case (a nil channel)
                    idx, _, _ = gosim.select(gosim.recv_case(tick.c), gosim.recv_case(done))  # :374
                    if idx == 1:
                        return  # :385
                    # If the consumer isn't ready for this tick, drop it.
                    gosim.select(gosim.send_case(ch, None), default=True)  # :378
            finally:
                tick.stop()  # :361
                ch.close()  # :358

        gosim.go(poll, name="poller")  # :357
        return ch  # :390

    return wait_func  # :354


@go_func("wait.PollUntil", "wait.go:289")
def _poll_until(condition, stop):
    return _wait_for(_poller(INTERVAL), condition, stop)  # :290 WaitFor(poller(interval, 0), condition, stopCh)


@go_func("wait.WaitFor", "wait.go:327")
def _wait_for(wait, condition, done):
    c = wait(done)  # :328
    while True:
        _, is_open = c.recv_ok()  # :330
        if condition():  # :331
            return True  # :336
        if not is_open:
            break  # :339
    return False  # :342


@go_func("wait.contextForChannel", "wait.go:259")
def _context_for_channel(parent_ch):
    """The fix's helper: a context cancelled when ``parent_ch`` closes or ``cancel`` is called."""
    ctx, cancel = gosim.with_cancel(gosim.background())  # :260

    @go_func("wait.contextForChannel.func1", "wait.go:262")
    def forward():
        idx, _, _ = gosim.select(gosim.recv_case(parent_ch), gosim.recv_case(ctx.done()))  # :263
        if idx == 0:
            cancel()  # :265

    gosim.go(forward, name="contextForChannel")  # :262
    return ctx, cancel  # :269


@go_func("wait.PollUntil", "wait.go:374")
def _poll_until_fixed(condition, stop):
    """``PollUntil`` at the fix: the poller stops on a child of ``stop`` that is cancelled on return."""
    ctx, cancel = _context_for_channel(stop)  # :375
    try:
        return _wait_for(_poller(INTERVAL), condition, ctx.done())  # :377
    finally:
        cancel()  # :376 defer cancel()


@not_ported("builds the scenario's main for one variant")
def _caller(derive_child: bool):
    @not_ported("scenario driver: a caller (like cache.WaitForCacheSync) passing the process-lifetime stop channel")
    def main():
        process_stop = gosim.Chan(name="processLifetimeStop")  # never closed
        synced = {"n": 0}

        @not_ported("test double: the condition (an informer's HasSynced)")
        def cache_synced():
            synced["n"] += 1
            return synced["n"] >= 2

        poll_until = _poll_until_fixed if derive_child else _poll_until
        assert poll_until(cache_synced, process_stop)

    return main


buggy = _caller(derive_child=False)
fixed = _caller(derive_child=True)
buggy.__doc__ = "The scenario before the upstream fix (fails under some schedule; see KINDS)."
fixed.__doc__ = "The scenario after the upstream fix (never fails)."
