"""Run one input through a harness in this process and describe the outcome as JSON.

    python -m fuzzfarm.runone HARNESS VARIANT INPUT_FILE [--trace] [--max-starvation=SECONDS|none] [--module=MOD]

prints one JSON object (see :func:`outcome`); ``--module`` names an unregistered harness
module (fuzzfarm's own tests); ``--max-starvation`` is the starvation bound to run under (as
``FUZZFARM_MAX_STARVATION_S``, over it; an input replays the same only under the bound it was
found with, which a reproducer's ``repro.json`` records and its ``replay_standalone`` passes). The collector runs it in fresh processes to verify reproducers; ``fuzzfarm replay`` uses :func:`outcome` directly. Exit code 1 when
the input fails, 0 when it does not, 2 when the harness cannot be loaded; the collector reads
the JSON, not the status.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import traceback

from fuzzfarm import harness as H
from fuzzfarm.harness.child import child_main
from fuzzfarm.gosim import failures as F

HARNESS_ERROR = "harness error"


def outcome(name: str, variant: str, data: bytes, *, trace: bool = False, module: str | None = None) -> dict:
    """Execute ``data`` on harness ``name``/``variant``; return a JSON-able dict:

    ``failed`` (bool), ``kind`` / ``exc_class`` / ``message`` / ``crash_state`` (list of
    function names) / ``dump`` (Go-like crash dump text) when failed, ``decisions`` (the
    recorded schedule), ``steps``, ``preemptions``, ``schedule_bytes`` (bytes the schedule
    consumed), ``preemption_edits`` ([[offset, byte], ...]), ``scenario``, ``trace`` (text,
    when asked: the scenario, the starvation figure, the timeline, the dump) and ``trace_json``
    (when asked: ``events`` as ``Trace.to_json``, ``legend`` [[gid, name, created_by], ...],
    ``failing_goroutine``, ``now``), ``input_sha256``, ``input_size``; ``go_crash_state`` (the
    crash state in Go's names and lines), ``crash_state_shape`` (``stack``, ``race`` or ``lock cycle``: what
    its frames are), ``subject`` (what it happened on), ``starvation`` (s),
    ``starved`` ([gid, Go name] of the goroutine that waited longest), ``bound_lifted`` (the
    schedule left the realism bound), ``early_fires`` and ``max_starvation_s`` (the bound
    setting the run had: seconds, None or ``"label"``; see ``docs/timing.md``);
    ``go_version`` (the Go release the run modelled) and, for a failure that needs older Go
    semantics, ``go_versions`` (which, and why: docs/RUNTIME.md#go-version).
    An exception escaping the harness's own decoding is reported as kind ``harness error``.
    Raises HarnessError when the harness cannot be loaded or has no such variant.
    ``module`` loads an unregistered harness module under ``name`` (fuzzfarm's own tests).
    """
    info = H.Target(name, module) if module else H.get(name)
    return outcome_of_module(info.load(), name, variant, data, trace=trace)


def outcome_of_module(mod, name: str, variant: str, data: bytes, *, trace: bool = False) -> dict:
    """:func:`outcome` for an already loaded harness module (callers running many inputs)."""
    H.check_variant(mod, variant)
    out = {"harness": name, "variant": variant, "input_sha256": hashlib.sha256(data).hexdigest(),
           "input_size": len(data)}
    try:
        ex = mod.execute(data, variant, trace=trace, log_schedule=True)
    except Exception as e:  # noqa: BLE001 - a bug in the harness itself is a finding too
        frames = F.frames_from_traceback(e.__traceback__)
        out.update(failed=True, kind=HARNESS_ERROR, exc_class=type(e).__name__, message=str(e),
                   crash_state=[f.func for f in frames[:3]], dump="".join(traceback.format_exception(e)),
                   decisions=[], steps=0, preemptions=0, schedule_bytes=0, preemption_edits=[],
                   scenario="", trace=None)
        return out
    rep = ex.report
    f = rep.failure
    out.update(
        failed=f is not None,
        kind=f.kind if f else None,
        exc_class=f.exc_class if f else None,
        message=f.detail if f else None,
        object=f.obj if f else None,  # the object whose operation failed (its label in this run)
        object_site=f.obj_site if f else None,  # ... and what it is across runs (root-cause grouping)
        racing_site=f.racing_site if f else None,  # the other goroutine's function in that race
        go_racing_site=f.go_racing_site if f else None,  # the same, in Go's name when declared
        crash_state=f.crash_state if f else [],
        dump=f.render() if f else None,
        decisions=rep.decisions,
        steps=rep.steps,
        preemptions=rep.preemptions,
        schedule_bytes=ex.schedule.consumed,
        preemption_edits=[list(e) for e in ex.schedule.preemption_edits()],
        scenario=ex.scenario,
        # what identifies the scenario across inputs: the bytes outside the schedule region (the
        # scenario decodes from them alone; a proof of it ignores the schedule, farm/triage.py)
        scenario_key=hashlib.sha256(data[:ex.schedule_start] + b"\0" + data[ex.schedule_end:]
                                    + b"\0" + str(ex.scenario_short).encode()).hexdigest(),
        trace=_trace_text(rep, ex.scenario) if trace else None,
        written_by=f.written_by if f else None,  # an assertion: who last wrote the state it read
        go_crash_state=f.go_crash_state if f else [],
        crash_state_shape=f.crash_state_shape if f else None,  # stack / race / lock cycle (views show sides)
        subject=f.subject if f else None,
        starvation=rep.starvation,
        starved=list(rep.starved) if rep.starved else None,  # (gid, Go name) of the goroutine that waited longest
        bound_lifted=getattr(rep, "bound_lifted", False),  # this schedule left the realism bound
        starved_all=[list(r) for r in getattr(rep, "starved_all", ())],  # [gid, name, wait], longest first
        early_fires=rep.early_fires,
        max_starvation_s=getattr(ex, "max_starvation_s", None),
        go_version=rep.go_version,  # the Go release whose semantics the run modelled
    )
    if f is not None and f.go_versions:  # the failure exists only under some Go versions
        out["go_versions"] = f.go_versions
    if trace:  # the same run as structured data: the web view draws it (fuzzfarm/web/swimlane.py)
        out["trace_json"] = {"events": rep.trace.to_json() if rep.trace is not None else [],
                             "legend": [list(g) for g in rep.legend],
                             "failing_goroutine": f.goroutine if f else None, "now": rep.now,
                             "scenario": ex.scenario}
        sl = rep.trace_slice() if rep.trace is not None else None
        if sl is not None:  # the events that matter, as indices into ``events`` (gosim/trace_slice.py)
            out["trace_json"]["slice"] = sl.to_json()
    return out


def _trace_text(rep, scenario: str) -> str:
    """``trace.txt``'s body: the failure's slice first (the events on the objects in the failure),
    then the scenario and the full timeline with the dump."""
    head = rep.render_slice()
    return ((f"{head}\n\n" if head else "") + f"scenario: {scenario}\n\n" + ("full timeline:\n" if head else "")
            + rep.render_trace(lead=False))


BOUND_OPTION = "--max-starvation"
USAGE = ("usage: python -m fuzzfarm.runone HARNESS VARIANT INPUT_FILE [--trace] [--max-starvation=SECONDS|none] "
         "[--module=MOD]\n")


def _take_bound(argv: list[str]) -> tuple[list[str], str | None]:
    """``argv`` without ``--max-starvation=X`` / ``--max-starvation X``, and X (None: not given)."""
    rest, bound, i = [], None, 0
    while i < len(argv):
        a = argv[i]
        if a.startswith(BOUND_OPTION + "="):
            bound = a.split("=", 1)[1]
        elif a == BOUND_OPTION:
            bound = argv[i + 1] if i + 1 < len(argv) else ""
            i += 1
        else:
            rest.append(a)
        i += 1
    return rest, bound


def read_input(path: str) -> bytes:
    """The bytes of the input file ``path``. ValueError (one line) for what is no input file: a
    device or a pipe (/dev/zero would be read forever, a FIFO would block: checked on the file
    opened without waiting for a writer) or more than ``MAX_INPUT_BYTES`` (read one byte over,
    never the whole file); OSError when it cannot be opened."""
    import stat

    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError(f"the input {path!r} is not a regular file (a device, a pipe or a socket); "
                             f"give the input file itself (a crash file, a reproducer's input.min)")
        data = f.read(H.MAX_INPUT_BYTES + 1)
    if len(data) > H.MAX_INPUT_BYTES:
        raise ValueError(f"the input {path!r} holds more than {H.MAX_INPUT_BYTES} bytes, the most an input may; "
                         f"give the input file itself (a crash file, a reproducer's input.min)")
    return data


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if any(a.startswith("--request=") for a in argv):  # the collector's replay (fuzzfarm/harness/child.py)
        return child_main(lambda mod, variant, data, req: outcome_of_module(mod, req["harness"], variant, data,
                                                                           trace=req["trace"]), argv)
    argv, bound = _take_bound(argv)
    args = [a for a in argv if not a.startswith("--")]
    module = next((a.split("=", 1)[1] for a in argv if a.startswith("--module=")), None)
    if len(args) != 3:
        sys.stderr.write(USAGE)
        return 2
    if bound is not None:
        try:  # every run of this process reads it (harness.max_starvation_s)
            os.environ[H.MAX_STARVATION_ENV] = H.max_starvation_text(H.parse_max_starvation(bound))
        except ValueError as e:
            sys.stderr.write(f"fuzzfarm: {BOUND_OPTION} {e}; e.g. {BOUND_OPTION}=0.1 or {BOUND_OPTION}=none\n")
            return 2
    name, variant, path = args
    try:
        data = read_input(path)
    except OSError as e:
        sys.stderr.write(f"fuzzfarm: cannot read the input {path!r}: {e.strerror or e}\n")
        return 2
    except ValueError as e:
        sys.stderr.write(f"fuzzfarm: {e}\n")
        return 2
    from fuzzfarm.instrument import disable
    disable()  # a replay needs no coverage, and instrumenting costs most of a start (fuzzfarm/instrument.py)
    try:
        res = outcome(name, variant, data, trace="--trace" in argv, module=module)
    except H.HarnessError as e:
        sys.stderr.write(f"fuzzfarm: {e}\n")
        return 2
    sys.stdout.write(json.dumps(res) + "\n")
    return 1 if res["failed"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
