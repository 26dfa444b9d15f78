"""HC-11: ``wait.PollUntil`` leaks its ticker goroutine when the caller's stop channel is long-lived.

kubernetes/kubernetes issue #71277, fixed by PR #71326 "Fix goroutine leak in
pkg/util/wait PollUntil()" (related: #14995/#15014, #44935, #70277). The poller goroutine P
ticks every interval and forwards ticks; it exits only when the caller's stop channel closes.
The caller passes the process-lifetime stop channel and returns as soon as the condition
holds, so P keeps running forever: a goroutine leak on every call, whatever the schedule.

Fixed: the helper derives a child stop channel and closes it when it returns.
"""

from __future__ import annotations

from fuzzfarm import gosim

ID = "HC-11"
TITLE = "wait.PollUntil leaks its poller goroutine"
SOURCE = "https://github.com/kubernetes/kubernetes/issues/71277 (fix PR #71326)"
KIND = "goroutine leak"
KINDS = (KIND,)
EXC_CLASS = None
DEPTH = 0
RUN_KW = {"check_leaks": True, "leak_grace": 10.0}

INTERVAL = 1.0


def _poller(interval, stop):
    """``wait.poller``: a goroutine forwarding ticks until ``stop`` closes."""
    ch = gosim.Chan(name="ticks")

    def poll():
        tk = gosim.new_ticker(interval)
        try:
            while True:
                idx, _, _ = gosim.select(gosim.recv_case(tk.c), gosim.recv_case(stop))
                if idx == 1:
                    return
                idx, _, _ = gosim.select(gosim.send_case(ch, None), gosim.recv_case(stop))
                if idx == 1:
                    return
        finally:
            tk.stop()
            ch.close()

    gosim.go(poll, name="poller")
    return ch


def _poll_until(condition, stop, derive_child: bool):
    if derive_child:
        done = gosim.Chan(name="pollUntil.done")
        child = gosim.Chan(name="pollUntil.stop")

        def forward():
            gosim.select(gosim.recv_case(stop), gosim.recv_case(done))
            child.close()

        gosim.go(forward, name="stopForwarder")
        try:
            return _wait_for(condition, _poller(INTERVAL, child))
        finally:
            done.close()
    return _wait_for(condition, _poller(INTERVAL, stop))


def _wait_for(condition, ticks):
    for _ in ticks:
        if condition():
            return True
    return False


def _caller(derive_child: bool):
    def main():
        process_stop = gosim.Chan(name="processLifetimeStop")  # never closed
        synced = {"n": 0}

        def cache_synced():
            synced["n"] += 1
            return synced["n"] >= 2

        assert _poll_until(cache_synced, process_stop, derive_child)

    return main


buggy = _caller(derive_child=False)
fixed = _caller(derive_child=True)
buggy.__doc__ = "The scenario before the upstream fix (fails under some schedule; see KINDS)."
fixed.__doc__ = "The scenario after the upstream fix (never fails)."
