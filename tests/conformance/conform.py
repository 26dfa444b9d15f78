"""The conformance machinery: run one small program as real Go and as gosim, and compare.

A case is a Go function in ``tests/conformance/go/`` (package main, registered with
``register``) and a Python function of the same name in snake_case in ``conform_*.py``
(``RWMutexWriterOrders`` / ``rw_mutex_writer_orders``: names match ignoring case and
underscores), decorated with :func:`case` and the outcomes Go can produce. An *outcome* of one
run is one line, the first of these the run printed:

* ``race``: ``-race`` printed ``WARNING: DATA RACE`` (gosim: a ``DataRace``);
* Go's first line of a panic or fatal error, byte for byte (``panic: close of nil channel``,
  ``fatal error: all goroutines are asleep - deadlock!``; gosim: ``GoFailure.go_says``);
* ``ok`` or ``ok:TEXT``: the run ended normally, having reported ``TEXT`` (Go: ``result(...)``,
  Python: the returned string).

The suite checks, per case: every outcome Go showed is declared, gosim's bounded exhaustive
search (every schedule with at most ``bound`` preemptions, timer firings included) reaches
exactly the declared outcomes, so whatever Go showed is reachable in gosim and gosim reports
nothing the case does not allow. A case declared ``differs=`` documents a known difference
(docs/RUNTIME.md#differences): the test then checks that the difference is still there.

Go runs: mode ``race`` cases run in the ``-race`` build, ``runs`` times in each of ``procs``
fresh processes (``GORACE`` with report de-duplication off, so every run's race is printed);
mode ``plain`` cases run in the plain build, once per fresh process (a panic ends the process,
and the race runtime never reports a deadlock). A process still running after ``HANG_S``
seconds is a hang: counted as the deadlock Go's plain runtime would report, in the race build
only (where Go cannot report one).

Timer cases run under both timer semantics (docs/RUNTIME.md#go-version): a case declared with
``old=`` (the outcomes of Go <= 1.22 timers) is also run in Go 1.26 (``gotool.OLD_TIMERS_GO``,
the last Go with ``GODEBUG=asynctimerchan=1``; 1.27 removed it) with that setting, against
gosim with ``go_version="1.22"``; the case's plain outcomes are Go 1.27's against gosim's default.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
import time
import dataclasses
from dataclasses import dataclass

from fuzzfarm import gosim
from fuzzfarm.gosim import goversion
from fuzzfarm.gotool import OLD_TIMERS_GO, go_env, old_timers_go_binary, run_go
from fuzzfarm.strategies.dfs import DFSStrategy

GO_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "go")
RACE = "race"
DEADLOCK = "fatal error: all goroutines are asleep - deadlock!"
HANG_S = 5.0
OLD_VERSION = "1.22"  # what gosim models for a case's old= run
OLD_GODEBUG = "asynctimerchan=1"
GORACE = "halt_on_error=0 suppress_equal_stacks=0 suppress_equal_addresses=0 atexit_sleep_ms=0"


def ok(text: str | None = None) -> str:
    return "ok" if text is None else f"ok:{text}"


@dataclass
class Case:
    name: str          # the Python twin's name (the Go function's, in snake_case)
    fn: object         # the Python twin: () -> str | None
    expect: frozenset  # every outcome Go can produce
    mode: str          # "race" or "plain"
    procs: int
    runs: int
    bound: int
    differs: str | None
    old: frozenset | None = None  # outcomes under Go <= 1.22 timers (None: not a timer case)
    old_differs: str | None = None  # a documented difference under Go <= 1.22 timers

    def under_old_timers(self) -> "Case":
        """This case as its Go <= 1.22 timers run: expect ``old``, differ by ``old_differs``."""
        return dataclasses.replace(self, expect=self.old, differs=self.old_differs, old=None, old_differs=None)


CASES: dict[str, Case] = {}


def key(name: str) -> str:
    """What a Go name and its Python twin's name share: ``RWMutexOrders`` and
    ``rwmutex_orders`` are both ``rwmutexorders``."""
    return name.replace("_", "").lower()


def case(*expect: str, mode: str = "plain", procs: int | None = None, runs: int | None = None,
         bound: int = 3, differs: str | None = None, old: tuple | None = None, old_differs: str | None = None):
    """Register the decorated Python twin. ``expect``: the outcomes Go can produce (at least
    one). ``procs`` x ``runs``: Go runs (defaults: race 2 x 15, plain 4 x 1). ``bound``: the
    preemption bound of gosim's search. ``differs``: the reason of a documented difference.
    ``old``: a timer case's outcomes under Go <= 1.22 timers (it then runs under both);
    ``old_differs``: the reason of a documented difference there."""
    def deco(fn):
        if mode not in ("race", "plain"):
            raise ValueError(f"mode {mode!r}: race or plain")
        k = key(fn.__name__)
        if k in CASES:
            raise ValueError(f"conformance case {fn.__name__} defined twice")
        CASES[k] = Case(fn.__name__, fn, frozenset(expect), mode,
                           procs if procs is not None else (2 if mode == "race" else 6),
                           runs if runs is not None else (25 if mode == "race" else 1), bound, differs,
                           frozenset(old) if old is not None else None, old_differs)
        return fn
    return deco


# -- Go side -----------------------------------------------------------------------------

_RUN = re.compile(r"^=== run \d+$")
_FAIL = re.compile(r"^(panic: |fatal error: )")


def build(out_dir: str) -> dict:
    """Build the Go half twice (``race`` and ``plain``) into ``out_dir``: {mode: binary}."""
    bins = {}
    for mode, flags in (("race", ["-race"]), ("plain", [])):
        path = os.path.join(out_dir, f"conformance-{mode}")
        p = run_go(["build", *flags, "-o", path, "."], cwd=GO_DIR)
        if p.returncode != 0:
            raise RuntimeError(f"go build {' '.join(flags)} failed:\n{p.stderr}")
        bins[mode] = path
    return bins


def build_old_timers(out_dir: str) -> dict:
    """The Go half built by Go 1.26 (``-modfile``: the same sources under a go.mod it accepts),
    for the ``old=`` runs with GODEBUG=asynctimerchan=1: {mode: binary}. FileNotFoundError
    when scripts/setup has not installed Go 1.26."""
    go = old_timers_go_binary()
    if go is None:
        raise FileNotFoundError(f"Go {OLD_TIMERS_GO} is not installed beside the venv's Go: run scripts/setup")
    modfile = os.path.join(out_dir, "go.mod")
    with open(modfile, "w") as f:
        f.write(f"module conformance\n\ngo {OLD_TIMERS_GO}\n")
    bins = {}
    for mode, flags in (("race", ["-race"]), ("plain", [])):
        path = os.path.join(out_dir, f"conformance-{mode}-go{OLD_TIMERS_GO}")
        p = subprocess.run([go, "build", *flags, "-modfile", modfile, "-o", path, "."], cwd=GO_DIR,
                           capture_output=True, text=True, timeout=600, env=go_env())
        if p.returncode != 0:
            raise RuntimeError(f"go{OLD_TIMERS_GO} build {' '.join(flags)} failed:\n{p.stderr}")
        bins[mode] = path
    return bins


def go_cases(binary: str) -> list[str]:
    p = subprocess.run([binary, "-list"], capture_output=True, text=True, timeout=60, check=True)
    return p.stdout.split()


def parse(output: str, hung: bool, mode: str) -> list[str]:
    """The outcome of each run in one process's output (stderr and stdout, in order)."""
    outcomes: list[str] = []
    cur: list[str] | None = None

    def finish(seg: list[str], ended: bool) -> None:
        fails = [ln for ln in seg if ln == "WARNING: DATA RACE" or _FAIL.match(ln)]
        if fails:
            first = fails[0]
            outcomes.append(RACE if first == "WARNING: DATA RACE" else first)
            return
        if not ended:
            if hung and mode == "race":
                outcomes.append(DEADLOCK)  # the race runtime cannot report the deadlock
            else:
                outcomes.append("hang" if hung else "crash:" + " | ".join(seg[-3:]))
            return
        res = [ln[len("result: "):] for ln in seg if ln.startswith("result: ")]
        outcomes.append(ok(res[-1]) if res else ok())

    for line in output.splitlines():
        if _RUN.match(line):
            if cur is not None:
                finish(cur, True)
            cur = []
        elif line == "=== end":
            if cur is not None:
                finish(cur, True)
            cur = None
        elif cur is not None:
            cur.append(line)
    if cur is not None:
        finish(cur, False)
    return outcomes


def run_go_case(binary: str, go_name: str, c: Case, godebug: str | None = None) -> dict[str, int]:
    """Run the Go function ``go_name`` (case ``c``) ``procs`` x ``runs`` times, with ``GODEBUG``
    set to ``godebug`` when given: {outcome: count}."""
    env = go_env({"GORACE": GORACE, "GOMAXPROCS": "2", **({"GODEBUG": godebug} if godebug else {})})
    counts: dict[str, int] = {}
    procs = []
    for _ in range(c.procs):
        f = tempfile.TemporaryFile()
        procs.append((subprocess.Popen([binary, go_name, str(c.runs)], stdout=f, stderr=subprocess.STDOUT,
                                       env=env), f))
    # one deadline for all: they run side by side, so a case whose every process hangs costs
    # HANG_S once, not once per process (each wait's own timeout did: 6 x 5 s)
    deadline = time.monotonic() + HANG_S
    for p, f in procs:
        try:
            p.wait(timeout=max(0.0, deadline - time.monotonic()))
            hung = False
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            hung = True
        f.seek(0)
        out = f.read().decode("utf-8", "replace")
        f.close()
        for o in parse(out, hung, c.mode):
            counts[o] = counts.get(o, 0) + 1
    return counts


# -- gosim side --------------------------------------------------------------------------

def outcome_of(report, value) -> str:
    f = report.failure
    if f is None:
        return ok(value)
    if isinstance(f, gosim.DataRace):
        return RACE
    return f.go_says or f"{f.kind}: {f.detail}"


def run_gosim(fn, strategy, race: bool, go_version: str = goversion.DEFAULT) -> str:
    box = []

    def main():
        box.append(fn())

    report = gosim.run(main, strategy=strategy, race=race, check_leaks=False, max_steps=3000, go_version=go_version)
    return outcome_of(report, box[0] if box else None)


def compare(c: Case, go: dict[str, int], sim: set[str], runs: int) -> tuple[bool, str]:
    """(agree, what each side showed): Go showed only declared outcomes, and gosim's search
    reached exactly the declared ones."""
    agree = bool(go) and set(go) <= c.expect and sim == c.expect
    detail = (f"{c.name}: Go showed {dict(sorted(go.items()))}, declared {sorted(c.expect)}, "
              f"gosim reached {sorted(sim)} in {runs} schedules")
    return agree, detail


def explore(c: Case, max_runs: int = 4000, go_version: str = goversion.DEFAULT) -> tuple[dict[str, list[int]], int, bool]:
    """Every schedule of the twin with at most ``c.bound`` preemptions (plain bounded DFS, no
    reduction) under Go ``go_version``: ({outcome: the decisions of one run reaching it}, runs,
    complete)."""
    race = c.mode == "race"
    found: dict[str, list[int]] = {}
    stack: list = [([], 0)]
    runs = 0
    while stack:
        if runs >= max_runs:
            return found, runs, False
        dec, p = stack.pop()
        strat = DFSStrategy(dec, p, c.bound)
        o = run_gosim(c.fn, strat, race, go_version)
        runs += 1
        found.setdefault(o, list(strat.decisions))
        stack.extend(reversed(strat.branches))
    return found, runs, True
