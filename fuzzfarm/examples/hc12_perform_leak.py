"""HC-12: Helm ``perform`` returns on the first error while workers block forever on an unbuffered send.

helm/helm PR #11898 "Fix goroutine leak in perform" (commit 11150cdc). ``perform`` starts the
batch launcher, then receives n results from an *unbuffered* errors channel and returns on
the first non-nil error; the workers that finish later block forever on their send: a
goroutine leak -- when the error is received before at least one other worker's result.

Fixed: ``perform`` always drains all n results and aggregates the errors.

Go lines: helm@e007c900ce5f2233c8583565d5ba1b0433b1a213 pkg/kube/client.go (the parent of the fix).
``batchPerform`` keeps one WaitGroup, waits on it only when the kind changes (the first
resource's wait returns at once) and returns after its loop, so the launcher never leaks: only
workers do. The scenario's resources are all one kind.
"""

from __future__ import annotations

from fuzzfarm import gosim
from fuzzfarm.gosim import go_func, not_ported

ID = "HC-12"
TITLE = "Helm perform returns on the first error and leaks its workers"
SOURCE = "https://github.com/helm/helm/pull/11898"
KIND = "goroutine leak"
KINDS = (KIND,)
EXC_CLASS = None
DEPTH = 1
RUN_KW = {"check_leaks": True}

RESOURCES = (("Pod", "web-0", None), ("Pod", "web-1", "connection refused"), ("Pod", "web-2", None))


@not_ported("builds the scenario's main for one variant")
def _perform(drain_all: bool):
    @go_func("kube.perform", "client.go:534")
    def main():
        errs = gosim.Chan(name="errs")  # :539 unbuffered

        @not_ported("test double: the ResourceActorFunc, an API call that may fail")
        def action(name, err):
            gosim.gosched()  # talk to the API server
            return err

        @go_func("kube.batchPerform", "client.go:571")
        def batch():  # B: one goroutine per resource; waits for the group when the kind changes
            kind = ""  # :572
            wg = gosim.WaitGroup("batchPerform.wg")  # :573 one group, reused for each kind
            for current_kind, name, err in RESOURCES:  # :574 (:575 currentKind)
                if kind != current_kind:  # :576
                    wg.wait()  # :577
                    kind = current_kind  # :578
                wg.add(1)  # :580

                @go_func("kube.batchPerform.func1", "client.go:581")
                def worker(name=name, err=err):
                    errs.send(action(name, err))  # :582
                    wg.done()  # :583

                gosim.go(worker, name=f"worker[{name}]")  # :581
            # no wait after the loop: batchPerform returns once every worker is started

        gosim.go(batch, name="batchPerform")  # :540
        collected = []
        for _ in RESOURCES:  # :542
            err = errs.recv()  # :543
            if err is not None:
                if not drain_all:
                    return err  # :545 the early return that leaks the other workers
                collected.append(err)
        return collected

    return main


buggy = _perform(drain_all=False)
fixed = _perform(drain_all=True)
buggy.__doc__ = "The scenario before the upstream fix (fails under some schedule; see KINDS)."
fixed.__doc__ = "The scenario after the upstream fix (never fails)."
