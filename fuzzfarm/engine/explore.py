"""Bounded exhaustive exploration of one scenario (strategy ``dfs``; see ``docs/EXPLORE.md``).

The scenario is the event part of an input (``data``); the schedule is searched. Iterative
context bounding (Musuvathi & Qadeer, CHESS): every schedule with 0 preemptions, then every one
with exactly 1, ... up to ``bound``, so the first counterexample found spends the fewest
preemptions any counterexample of this scenario needs. A preemption is a switch away from a
goroutine that could go on, or a timer fired early.

The unit of work is an *item* ``(decisions, preemptions)``: the subtree of runs that start
with those decisions. :func:`explore_items` runs a list of items (the local search runs one,
the root; the farm hands items out as tasks) and returns what it saw:

* ``classes``: hex keys of the distinct schedules explored. With the reduction a key is the
  run's trace fingerprint and outcome, so two runs that differ only in the order of steps
  touching nothing in common count once; without it, the decision list. The union over any
  split of the tree into items is the same set as one local search (each item explores every
  class its subtree holds, pruning only against states its own runs reached), which is what
  makes a distributed count exact and a redone item harmless.
* ``runs`` (runs executed), ``pruned`` (runs cut because their state was reached before with
  no more preemptions), ``pending`` (items left when a budget stopped it), ``failure``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import time

from fuzzfarm.harness.signature import hazard_name
from fuzzfarm.strategies.dfs import DFSStrategy, Pruned, _h

DEFAULT_BOUND = 2

# What a proof with the reduction rests on, said on the line the user reads. The reduction sees
# every access to gosim objects (scheduling points and ``Footprints.access``), but not a plain
# Python object or a closure variable two goroutines share without a gosim operation ordering
# them; such a program is a data race in Go, and the reduction may cut the only schedule where
# the race shows. ``--no-reduction`` searches without this assumption (docs/EXPLORE.md).
ASSUMPTION = ("assuming goroutines share state only through gosim objects (channels, Map, Shared/Var, "
              "atomics, locks), as a race-free Go program does")


def assumption(reduction: bool) -> str:
    """The clause a proof line ends with: the reduction's assumption, or nothing without it."""
    return f", {ASSUMPTION}" if reduction else ""


class ExploreError(Exception):
    """The scenario cannot be explored (the harness's decoding fails, or runs do not repeat)."""


def check_limits(bound: int, max_schedules: int | None = None, max_time: float | None = None, *,
                 names=("the preemption bound", "the schedule budget", "the time budget")) -> None:
    """The search's bound and budgets are usable (ExploreError saying which is not, by ``names``):
    ``bound`` and ``max_schedules`` whole numbers >= 0, ``max_time`` finite seconds >= 0 (None or
    0: no limit). A nan budget is never reached, so it would be no limit said by accident."""
    import math

    def whole(v) -> bool:
        return isinstance(v, int) and not isinstance(v, bool) and v >= 0

    if not whole(bound):
        raise ExploreError(f"{names[0]} must be a whole number >= 0, got {bound!r}")
    if max_schedules is not None and not whole(max_schedules):
        raise ExploreError(f"{names[1]} must be a whole number >= 0 (0: no limit), got {max_schedules!r}")
    if max_time is not None and not (isinstance(max_time, (int, float)) and math.isfinite(max_time) and max_time >= 0):
        raise ExploreError(f"{names[2]} must be a finite number of seconds >= 0 (0: no limit), got {max_time!r}")


def output_problem(path: str, *, force: bool = False) -> str | None:
    """Why a reproducer cannot be written to the file ``path``, or None. Said before a search
    (which can take minutes): an empty name, a directory, a parent that is not a writable
    directory, or a file that already holds something (unless ``force``)."""
    import os

    if not path or not path.strip():
        return f"{path!r} is not a file name; give the file to write the reproducer to"
    if os.path.isdir(path):
        return f"{path!r} is a directory; give the file to write the reproducer to (e.g. {os.path.join(path, 'cx.bin')})"
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent) or not os.access(parent, os.W_OK | os.X_OK):
        return f"{path!r} cannot be written: {parent!r} is not a writable directory; choose another path"
    if not force and (os.path.islink(path) or (os.path.exists(path) and os.path.getsize(path) > 0)):
        # a reproducer of an earlier search is somebody's finding: never replaced silently
        return f"{path} already exists; choose another -o FILE, or pass --force to overwrite it"
    return None


def read_input(path: str, option: str = "--input") -> bytes:
    """The bytes of the input file ``path`` whose scenario is searched. ExploreError (one line) when
    it cannot be read or holds more than an input may (``MAX_INPUT_BYTES``): read up to one byte
    over the limit, so that /dev/zero or a huge file is refused, never read into memory."""
    from fuzzfarm.engine.model import MAX_INPUT_BYTES

    try:
        with open(path, "rb") as f:
            data = f.read(MAX_INPUT_BYTES + 1)
    except OSError as e:
        raise ExploreError(f"cannot read {option} {path!r}: {e.strerror or e}") from None
    if len(data) > MAX_INPUT_BYTES:
        raise ExploreError(f"{option} {path!r} holds more than {MAX_INPUT_BYTES} bytes, the most an input may; "
                           f"give the input file itself (a reproducer, a corpus entry)")
    return data


def write_reproducer(path: str, data: bytes) -> str:
    """Write ``data`` to ``path`` atomically (a new ``.tmp`` beside it, renamed over it). When that
    fails (the directory went away or filled up during the search) the counterexample is not
    lost: it goes to a new file in the system's temporary directory. Returns the path written;
    no ``.tmp`` is left behind either way. OSError only when both fail."""
    import os
    import tempfile

    tmp, made = f"{path}.{os.getpid()}.tmp", False
    try:  # "x": created here, never a file of the user's that happens to bear the name
        with open(tmp, "xb") as f:
            made = True
            f.write(data)
        os.replace(tmp, path)
        return path
    except OSError:
        if made:
            try:
                os.unlink(tmp)
            except OSError:
                pass
    fd, spare = tempfile.mkstemp(prefix="fuzzfarm-dfs-", suffix=".bin")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    return spare


# Environment variables that change what an input does when it is replayed: the race detector's
# mode (harness.RACE_ENV) and the examples harness's pinned case (harnesses/examples_race.py:
# without it the last byte picks another case). A printed replay command carries the ones set.
RUN_ENV = ("FUZZFARM_RACE", "FUZZFARM_EXAMPLE")


def replay_command(harness: str, variant: str, path: str, *, python: str = "python", env=None) -> str:
    """The shell command that replays the reproducer ``path`` on its own (``fuzzfarm.runone``),
    with the starvation bound and the :data:`RUN_ENV` variables (of ``env``, default this
    process's) this search ran under. ``python``: the interpreter as the user types it."""
    import os
    import shlex

    from fuzzfarm import harness as H

    env = os.environ if env is None else env
    pre = "".join(f"{k}={shlex.quote(env[k])} " for k in RUN_ENV if env.get(k))
    args = ["-m", "fuzzfarm.runone", harness, variant, path, "--trace",
            f"--max-starvation={H.max_starvation_text(H.max_starvation_s())}"]
    return pre + python + " " + " ".join(shlex.quote(a) for a in args)


@dataclasses.dataclass
class ExploreResult:
    """What a search established. ``exhausted``: every schedule within ``bound`` preemptions
    was explored (or stood for by an equivalent one); only then is the result a proof, and
    only for ``bound`` and ``scenario``. ``schedules``: distinct schedules explored;
    ``runs``: runs executed; ``pruned``: runs cut as equivalent to an explored state;
    ``level``: the preemption count being explored when it stopped (``bound`` when exhausted);
    ``pending``: subtrees left (by preemption count) when a budget stopped it."""

    harness: str
    variant: str
    scenario: str
    bound: int
    reduction: bool
    exhausted: bool
    schedules: int
    runs: int
    pruned: int
    elapsed_s: float
    level: int
    pending: dict
    failure: dict | None = None
    reproducer: bytes | None = None
    stopped_by: str | None = None
    tolerated: dict = dataclasses.field(default_factory=dict)
    proven_bound: int = -1  # every schedule with at most this many preemptions was explored clean
    proven_schedules: int = 0  # ... and this many distinct schedules have at most that many

    @property
    def proven(self) -> bool:
        return self.exhausted and self.failure is None

    def verdict(self) -> str:
        """One line that never calls a bounded or stopped search more than it is."""
        if self.failure is not None:
            return (f"counterexample with {self.failure['preemptions']} preemption(s) after {self.schedules} "
                    f"schedule(s): {self.failure['kind']}")
        if self.exhausted:
            return (f"proven up to {self.bound} preemptions for this scenario ({self.schedules} schedules"
                    f"{'' if self.reduction else ', no reduction'}){assumption(self.reduction)}")
        line = (f"no counterexample in {self.schedules} schedules (not exhausted: {self.stopped_by} at "
                f"{self.level} preemption(s) of {self.bound})")
        if self.proven_bound >= 0:
            line += partial_proof(self.proven_bound, self.proven_schedules, self.reduction)
        return line

    def to_json(self) -> dict:
        d = dataclasses.asdict(self)
        d["reproducer"] = self.reproducer.hex() if self.reproducer is not None else None
        d["proven"] = self.proven
        d["verdict"] = self.verdict()
        return d


def _class_key(strat: DFSStrategy, ex) -> str:
    f = ex.report.failure
    outcome = None if f is None else (f.kind, f.exc_class, tuple(f.crash_state))
    if strat.observer is None:
        return hashlib.blake2b(repr((tuple(strat.decisions), outcome)).encode(), digest_size=16).hexdigest()
    return _h(strat.observer.fingerprint(), outcome).hex()


def _run(mod, variant: str, data: bytes, strat: DFSStrategy):
    from fuzzfarm import harness as H

    with H.schedule_from(strat):
        return mod.execute(data, variant)


def scenario_of(mod, variant: str, data: bytes) -> str:
    """The harness's description of the scenario ``data`` decodes to (one default run)."""
    try:
        return _run(mod, variant, data, DFSStrategy(bound=0)).scenario
    except Exception as e:  # noqa: BLE001 - the harness's decoding
        raise ExploreError(f"the harness cannot run this input: {type(e).__name__}: {e}") from e


def explore_items(mod, variant: str, data: bytes, items, *, bound: int, reduce: bool = True,
                  max_runs: int | None = None, deadline: float | None = None, stop_on_failure: bool = True,
                  cache: dict | None = None, tolerate=(), clock=time.monotonic, give_up_early: bool = False) -> dict:
    """Explore the subtrees ``items`` (``[(decisions, preemptions), ...]``) in order of increasing
    preemptions. Stops at the first failure (``stop_on_failure``), after ``max_runs`` runs or at
    ``deadline`` (read on ``clock``, default ``time.monotonic()``), returning the items not yet explored in ``pending``.
    Failures whose signature ``kind at f1 <- f2 <- f3`` (``signature.hazard_name``) is in
    ``tolerate`` are counted in ``tolerated`` and the search goes on; a kind alone matches nothing.
    ``give_up_early`` (with a ``deadline``): stop as soon as the subtrees still waiting, each at
    least one run, cannot all run before the deadline at the mean cost of the runs so far
    (``stopped_by`` ``"cannot finish in its budget"``): a search that cannot be exhausted says so
    early instead of spending its whole budget (the fix's proof, collector/prove.py)."""
    levels: dict[int, list] = {}
    for dec, p in items:
        levels.setdefault(int(p), []).append((list(dec), int(p)))
    cache = ({} if cache is None else cache) if reduce else None
    classes: set[str] = set()
    runs = pruned = 0
    tolerated: dict[str, int] = {}
    failure = None
    repro = None
    stopped = None
    c_start = clock()
    level = min(levels) if levels else bound
    done_level, done_classes = min(levels, default=bound + 1) - 1, 0
    while levels:
        level = min(levels)
        stack = levels[level]
        stack.reverse()  # pop() takes them in the given order
        while stack:
            if max_runs is not None and runs >= max_runs:
                stopped = "schedule budget"
                break
            if deadline is not None and clock() >= deadline:
                stopped = "time budget"
                break
            if give_up_early and deadline is not None and runs >= 20 and runs % 10 == 0:
                now = clock()
                waiting = len(stack) + sum(len(v) for lv, v in levels.items() if lv != level)
                if waiting * (now - c_start) / runs > deadline - now:
                    stopped = CANNOT_FINISH
                    break
            dec, p = stack.pop()
            strat = DFSStrategy(dec, p, bound, cache)
            runs += 1
            try:
                ex = _run(mod, variant, data, strat)
            except Pruned:
                pruned += 1
                ex = None
            except Exception as e:  # noqa: BLE001
                raise ExploreError(f"a run failed outside the program: {type(e).__name__}: {e}") from e
            new = strat.branches
            for b_dec, b_p in reversed(new):  # explore the earliest alternative first
                (stack if b_p == level else levels.setdefault(b_p, [])).append((b_dec, b_p))
            if ex is None:
                continue
            classes.add(_class_key(strat, ex))
            f = ex.report.failure
            hazard = None if f is None or not tolerate else hazard_name(f.kind, f.crash_state)
            if hazard is not None and hazard in tolerate:  # by signature, never by kind alone
                tolerated[hazard] = tolerated.get(hazard, 0) + 1
                continue
            if f is not None and failure is None:
                failure = {"kind": f.kind, "exc_class": f.exc_class, "message": f.detail,
                           "crash_state": list(f.crash_state), "go_crash_state": list(f.go_crash_state),
                           "crash_state_shape": f.crash_state_shape, "preemptions": strat.preemptions,
                           "decisions": list(strat.decisions)}
                repro = ex.as_bytes_input(data)
                if stop_on_failure:
                    stopped = "failure"
                    break
        if stopped is not None:
            stack.reverse()
            if not stack:
                del levels[level]
            break
        del levels[level]
        done_level, done_classes = level, len(classes)
    if not levels and stopped is None:
        done_level, done_classes = bound, len(classes)
    pending = [(d, p) for lv in sorted(levels) for d, p in levels[lv]]
    return {"classes": classes, "runs": runs, "pruned": pruned, "pending": pending, "failure": failure,
            "tolerated": tolerated, "done_level": done_level, "done_classes": done_classes,
            "reproducer": repro, "stopped_by": stopped, "level": level}


CANNOT_FINISH = "cannot finish in its budget"


def explore(mod, variant: str, data: bytes = b"", *, bound: int = DEFAULT_BOUND, reduce: bool = True,
            max_schedules: int | None = None, max_time: float | None = None,
            stop_on_failure: bool = True, tolerate=(), clock=time.monotonic, give_up_early: bool = False) -> ExploreResult:
    """Search every schedule of the scenario ``data`` decodes to, on harness module ``mod``,
    with at most ``bound`` preemptions. ``max_schedules`` bounds the runs executed and
    ``max_time`` the seconds on ``clock`` (wall by default; ``time.process_time``: CPU seconds
    of this process, a budget that load on the machine does not shrink); either one stopping
    the search makes ``exhausted`` False.
    ``tolerate``: failure signatures ``kind at f1 <- f2 <- f3`` that do not count as
    counterexamples (a hazard the fixed variant is declared to keep: ``FIXED_MAY_FAIL``); they
    are counted in ``tolerated``."""
    from fuzzfarm import harness as H

    H.check_variant(mod, variant)
    check_limits(bound, max_schedules, max_time)
    t0, c0 = time.monotonic(), clock()
    scenario = scenario_of(mod, variant, data)
    deadline = c0 + max_time if max_time else None
    r = explore_items(mod, variant, data, [([], 0)], bound=bound, reduce=reduce, max_runs=max_schedules,
                      deadline=deadline, stop_on_failure=stop_on_failure, tolerate=tuple(tolerate), clock=clock,
                      give_up_early=give_up_early)
    return result_from(mod.NAME, variant, scenario, bound, reduce, r, time.monotonic() - t0)


def result_from(harness: str, variant: str, scenario: str, bound: int, reduce: bool, r: dict,
                elapsed_s: float) -> ExploreResult:
    """The result of a finished (local or merged) search ``r`` (``explore_items`` fields)."""
    pending: dict[str, int] = {}
    for _, p in r["pending"]:
        pending[str(p)] = pending.get(str(p), 0) + 1
    budget = r["stopped_by"] not in (None, "failure")
    exhausted = not r["pending"] and r["stopped_by"] is None
    return ExploreResult(harness=harness, variant=variant, scenario=scenario, bound=bound, reduction=reduce,
                         exhausted=exhausted, schedules=len(r["classes"]), runs=r["runs"], pruned=r["pruned"],
                         elapsed_s=round(elapsed_s, 3), level=bound if exhausted else r["level"], pending=pending,
                         failure=r["failure"], reproducer=r["reproducer"],
                         stopped_by=r["stopped_by"] if budget else None, tolerated=dict(r.get("tolerated") or {}),
                         proven_bound=-1 if r["failure"] is not None else r.get("done_level", -1),
                         proven_schedules=r.get("done_classes", 0))


def _subtree(mod, variant: str, data: bytes, req: dict) -> dict:
    """The child of a farm subtree task (``farm/explore_jobs.py``, through ``fuzzfarm.harness.child``):
    ``explore_items``'s fields, classes as a list, the reproducer as hex."""
    try:
        r = explore_items(mod, variant, data, req["items"], bound=req["bound"], reduce=req["reduce"],
                          max_runs=req["max_runs"], stop_on_failure=not req["all_failures"])
    except (ExploreError, ValueError) as e:
        return {"error": f"{type(e).__name__}: {e}"}
    r["classes"] = sorted(r["classes"])
    r["reproducer"] = r["reproducer"].hex() if r["reproducer"] is not None else None
    return r


def main(argv: list[str] | None = None) -> int:
    from fuzzfarm.harness import child
    return child.child_main(_subtree, argv)


if __name__ == "__main__":
    raise SystemExit(main())


def partial_proof(bound: int, schedules: int, reduction: bool = False) -> str:
    """The clause for the deepest bound a stopped search did exhaust; at bound 0 it says what that
    is (only the schedules without a preemption), since "proven up to 0" reads as nothing proven.
    With the reduction it ends with the reduction's assumption (:data:`ASSUMPTION`)."""
    if bound == 0:
        return (f"; proven only without preemptions: all {schedules} schedules with no preemption pass"
                f"{assumption(reduction)}")
    return f"; proven up to {bound} preemption(s) for this scenario ({schedules} schedules){assumption(reduction)}"
