"""HC-12: Helm ``perform`` returns on the first error while workers block forever on an unbuffered send.

helm/helm PR #11898 "Fix goroutine leak in perform" (commit 11150cdc). ``perform`` starts the
batch launcher, then receives n results from an *unbuffered* errors channel and returns on
the first non-nil error; the workers that finish later block forever on their send (and the
launcher on the group's WaitGroup): a goroutine leak -- when the error is received before at
least one other worker's result.

Fixed: ``perform`` always drains all n results and aggregates the errors.
"""

from __future__ import annotations

from fuzzfarm import gosim

ID = "HC-12"
TITLE = "Helm perform returns on the first error and leaks its workers"
SOURCE = "https://github.com/helm/helm/pull/11898"
KIND = "goroutine leak"
KINDS = (KIND,)
EXC_CLASS = None
DEPTH = 1
RUN_KW = {"check_leaks": True}

RESOURCES = (("Pod", "web-0", None), ("Pod", "web-1", "connection refused"), ("Pod", "web-2", None))


def _perform(drain_all: bool):
    def main():
        errs = gosim.Chan(name="errs")  # unbuffered

        def action(kind, name, err):
            gosim.gosched()  # talk to the API server
            return err

        def batch():  # B: one goroutine per resource; waits for a group when the kind changes
            group, kind_of_group = None, None
            for kind, name, err in RESOURCES:
                if kind != kind_of_group:
                    if group is not None:
                        group.wait()
                    group, kind_of_group = gosim.WaitGroup(f"group[{kind}]"), kind
                group.add(1)

                def worker(kind=kind, name=name, err=err, group=group):
                    errs.send(action(kind, name, err))
                    group.done()

                gosim.go(worker, name=f"worker[{name}]")
            group.wait()

        gosim.go(batch, name="batchPerform")
        collected = []
        for _ in RESOURCES:
            err = errs.recv()
            if err is not None:
                if not drain_all:
                    return err  # the early return that leaks the other workers
                collected.append(err)
        return collected

    return main


buggy = _perform(drain_all=False)
fixed = _perform(drain_all=True)
buggy.__doc__ = "The scenario before the upstream fix (fails under some schedule; see KINDS)."
fixed.__doc__ = "The scenario after the upstream fix (never fails)."
