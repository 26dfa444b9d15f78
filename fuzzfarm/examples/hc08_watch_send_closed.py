"""HC-08: etcd benchmark ``watch``: the results channel is closed while watch receivers still send.

etcd-io/etcd issue #8056 (also #8171), fixed by PR #8069; same family #4708/#4704 and
#5099/#5101. One report's results channel serves two phases: watch-creation latencies and
watch-event latencies. Main waits until every watch is created, closes the channel to finish
the creation report, and only then starts the put phase (watch.go:138 before :167); the
putter's events make the per-watcher receive goroutines send event latencies on the same, now
closed, channel: ``panic: send on closed channel``, in every schedule (depth 0). The Go twin
(gotwins/examples/hc08) panics in every real-Go run. (This port used to start the putter
before the close, which let a schedule deliver every event first and pass: an ordering upstream
does not have.)

Fixed: a dedicated events channel, closed only after every receiver has exited (a WaitGroup).

Go lines: etcd@56841bbc5f7e183ebd2f7529d5d5edcffb9945a3 tools/benchmark/cmd/watch.go (the first parent
of the fix's merge d5b917daa); ``# :N`` comments cite buggy lines (the fix rewrote the file). The
putter stands for the put goroutine and the server's event delivery to the watchers in one.
"""

from __future__ import annotations

from fuzzfarm import gosim
from fuzzfarm.gosim import go_func, not_ported

ID = "HC-08"
TITLE = "etcd benchmark watch: results channel closed while receivers still send"
SOURCE = "https://github.com/etcd-io/etcd/issues/8056 (fix PR #8069)"
KIND = "send on closed channel"
KINDS = (KIND,)
EXC_CLASS = None
DEPTH = 0
RUN_KW = {"check_leaks": True}

STREAMS = 2
KEYS = 1


@not_ported("builds the scenario's main for one variant")
def _benchmark(separate_channels: bool):
    @go_func("cmd.watchFunc", "watch.go:86")
    def main():
        results = gosim.Chan(16, name="report.results")  # :121
        events = gosim.Chan(16, name="eventReport.results") if separate_channels else results
        created = gosim.WaitGroup("watchesCreated")
        receivers = gosim.WaitGroup("receivers")
        watchers = []

        @not_ported("stands for pkg/report's results consumer (report.Run), outside watch.go")
        def consume(ch):
            for _ in ch:
                pass

        @go_func("cmd.recvWatchChan", "watch.go:197")
        def receive(w):  # Rj: one per watcher
            try:
                for _ev in w:  # :198
                    events.send("event latency")  # :201
            finally:
                receivers.done()

        @go_func("cmd.doWatch", "watch.go:183")
        def create(k):  # Wk
            w = gosim.Chan(4, name=f"watcher{k}")  # :186 stream.Watch
            watchers.append(w)
            results.send("creation latency")  # :187
            receivers.add(1)
            gosim.go(receive, w, name=f"receive{k}")  # :189
            created.done()  # :191

        @go_func("cmd.watchFunc.func3", "watch.go:167")
        def putter():
            for i in range(KEYS):
                for w in list(watchers):
                    w.send(f"put key{i}")  # :169
            for w in list(watchers):
                w.close()

        gosim.go(consume, results, name="creationReport")
        if separate_channels:
            gosim.go(consume, events, name="eventReport")
        created.add(STREAMS)
        for k in range(STREAMS):
            gosim.go(create, k, name=f"watch{k}")  # :123
        created.wait()  # :136
        results.close()  # :138 the creation report is finished ...
        gosim.go(putter, name="putter")  # :167 ... before the put phase starts
        if separate_channels:
            receivers.wait()
            events.close()
        gosim.sleep(1)

    return main


buggy = _benchmark(separate_channels=False)
fixed = _benchmark(separate_channels=True)
buggy.__doc__ = "The scenario before the upstream fix (fails under some schedule; see KINDS)."
fixed.__doc__ = "The scenario after the upstream fix (never fails)."
