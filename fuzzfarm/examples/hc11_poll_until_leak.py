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
The fixed variant's forwarder cites the fix commit 49fd9693305e0d8297fa7ff0f8ae762b9ed19430. Upstream's
poller drops a tick the consumer is not ready for (``default``); the port's waits for it or for stop.
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


@go_func("wait.poller.func1", "wait.go:354")
def _poller(interval, stop):
    """``wait.poller``: a goroutine forwarding ticks until ``stop`` closes."""
    ch = gosim.Chan(name="ticks")  # :355

    @go_func("wait.poller.func1.1", "wait.go:357")
    def poll():
        tk = gosim.new_ticker(interval)  # :360
        try:
            while True:
                idx, _, _ = gosim.select(gosim.recv_case(tk.c), gosim.recv_case(stop))  # :374
                if idx == 1:
                    return  # :385
                idx, _, _ = gosim.select(gosim.send_case(ch, None), gosim.recv_case(stop))  # :378
                if idx == 1:
                    return
        finally:
            tk.stop()  # :361
            ch.close()  # :358

    gosim.go(poll, name="poller")  # :357
    return ch  # :390


@go_func("wait.PollUntil", "wait.go:289")
def _poll_until(condition, stop, derive_child: bool):
    if derive_child:
        done = gosim.Chan(name="pollUntil.done")
        child = gosim.Chan(name="pollUntil.stop")

        @go_func("wait.contextForChannel.func1", "wait.go:262")
        def forward():
            gosim.select(gosim.recv_case(stop), gosim.recv_case(done))
            child.close()

        gosim.go(forward, name="stopForwarder")
        try:
            return _wait_for(condition, _poller(INTERVAL, child))
        finally:
            done.close()
    return _wait_for(condition, _poller(INTERVAL, stop))  # :290 WaitFor(poller(interval, 0), condition, stopCh)


@go_func("wait.WaitFor", "wait.go:327")
def _wait_for(condition, ticks):
    for _ in ticks:  # :330
        if condition():  # :331
            return True  # :336
    return False  # :342


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

        assert _poll_until(cache_synced, process_stop, derive_child)

    return main


buggy = _caller(derive_child=False)
fixed = _caller(derive_child=True)
buggy.__doc__ = "The scenario before the upstream fix (fails under some schedule; see KINDS)."
fixed.__doc__ = "The scenario after the upstream fix (never fails)."
