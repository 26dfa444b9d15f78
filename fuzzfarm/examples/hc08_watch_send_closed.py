"""HC-08: etcd benchmark ``watch``: the results channel is closed while watch receivers still send.

etcd-io/etcd issue #8056 (also #8171), fixed by PR #8069; same family #4708/#4704 and
#5099/#5101. One report's results channel serves two phases: watch-creation latencies and
watch-event latencies. Main waits until every watch is created, closes the channel to finish
the creation report, and the putter's events make the per-watcher receive goroutines send
event latencies on the same, now closed, channel: ``panic: send on closed channel``.

Fixed: a dedicated events channel, closed only after every receiver has exited (a WaitGroup).
"""

from __future__ import annotations

from fuzzfarm import gosim

ID = "HC-08"
TITLE = "etcd benchmark watch: results channel closed while receivers still send"
SOURCE = "https://github.com/etcd-io/etcd/issues/8056 (fix PR #8069)"
KIND = "send on closed channel"
KINDS = (KIND,)
EXC_CLASS = None
DEPTH = 1
RUN_KW = {"check_leaks": True}

STREAMS = 2
KEYS = 1


def _benchmark(separate_channels: bool):
    def main():
        results = gosim.Chan(16, name="report.results")
        events = gosim.Chan(16, name="eventReport.results") if separate_channels else results
        created = gosim.WaitGroup("watchesCreated")
        receivers = gosim.WaitGroup("receivers")
        watchers = []

        def consume(ch):
            for _ in ch:
                pass

        def receive(w):  # Rj: one per watcher
            try:
                for _ev in w:
                    events.send("event latency")
            finally:
                receivers.done()

        def create(k):  # Wk
            w = gosim.Chan(4, name=f"watcher{k}")
            watchers.append(w)
            results.send("creation latency")
            receivers.add(1)
            gosim.go(receive, w, name=f"receive{k}")
            created.done()

        def putter():
            for i in range(KEYS):
                for w in list(watchers):
                    w.send(f"put key{i}")
            for w in list(watchers):
                w.close()

        gosim.go(consume, results, name="creationReport")
        if separate_channels:
            gosim.go(consume, events, name="eventReport")
        created.add(STREAMS)
        for k in range(STREAMS):
            gosim.go(create, k, name=f"watch{k}")
        created.wait()
        gosim.go(putter, name="putter")  # events may already flow ...
        results.close()  # ... when the creation report is finished
        if separate_channels:
            receivers.wait()
            events.close()
        gosim.sleep(1)

    return main


buggy = _benchmark(separate_channels=False)
fixed = _benchmark(separate_channels=True)
buggy.__doc__ = "The scenario before the upstream fix (fails under some schedule; see KINDS)."
fixed.__doc__ = "The scenario after the upstream fix (never fails)."
