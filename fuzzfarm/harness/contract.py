"""The harness contract, the side a harness process runs: :class:`Execution`,
:func:`execute_scenario`, ``TestOneInput``'s ending (:func:`raise_unless_tolerated`), the atheris
entry, the variant and race settings and the ``with`` overrides other strategies drive a run with.
:mod:`fuzzfarm.harness` re-exports all of it; ``declare`` (``declaration.py``) builds on it.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Callable
from types import ModuleType

# ast and shlex are imported where used: a fuzz child needs none of them before its
# first schedule, and each is a share of its start-up (docs/BENCHMARKS.md#startup).

from .knobs import DEFAULT_MAX_STARVATION_S, LABEL, LIFT_ONE_IN, max_starvation_s
from .scenario_reader import ScenarioReader  # noqa: F401 - part of the harness contract

VARIANT_ENV = "FUZZFARM_VARIANT"


class HarnessError(Exception):
    """A harness cannot be used: unknown name, import failure, bad variant. ``str`` says what to do."""

@dataclasses.dataclass
class Execution:
    """One harness execution: the runtime report, the schedule strategy, the decoded scenario.

    ``report``: ``gosim.RunReport``; ``schedule``: the ``BytesStrategy`` that drove it (its
    ``preemption_edits()`` when ``log_schedule`` was set); ``scenario``: a human-readable
    description of what the input decoded to.
    """

    report: object
    schedule: object
    scenario: str
    schedule_start: int = 0
    schedule_end: int = 0
    scenario_short: int = 0  # zero bytes the scenario read past the input (ScenarioReader.short)
    max_starvation_s: float | None = None  # the run's bound on starvation (docs/timing.md)

    @property
    def failure(self):
        return self.report.failure

    def as_bytes_input(self, data: bytes) -> bytes:
        """The input that replays this execution under the bytes strategy: ``data`` with its
        schedule region replaced by the recorded decisions (for ``random``/``pct`` runs, see
        :func:`schedule_from`); ``data`` itself for bytes-driven runs. The zeros a short
        scenario read go between the schedule and the scenario bytes (``fuzzfarm.harness.scenario_reader``)
        so the scenario decodes the same."""
        rec = getattr(self.schedule, "recorded", None)
        if rec is None:
            return data
        return data[:self.schedule_start] + bytes(rec) + bytes(self.scenario_short) + data[self.schedule_end:]


def check_variant(mod: ModuleType, variant: str) -> str:
    if variant not in mod.VARIANTS:
        raise HarnessError(f"harness {mod.NAME!r} has no variant {variant!r}; choose one of {', '.join(mod.VARIANTS)}")
    return variant


def variant_from_env(variants: tuple[str, ...]) -> str:
    """The variant named by ``FUZZFARM_VARIANT`` (default: the first). Exits with a clear
    message for an unknown one (standalone harness runs)."""
    v = os.environ.get(VARIANT_ENV, variants[0])
    if v not in variants:
        sys.stderr.write(f"fuzzfarm: {VARIANT_ENV}={v!r} is not a variant of this harness; choose one of {', '.join(variants)}\n")
        raise SystemExit(2)
    return v


RACE_ENV = "FUZZFARM_RACE"
_RACE_MODES = {"on": True, "off": False, "auto": None}


def race_from_env() -> bool | None:
    """``FUZZFARM_RACE``: ``on`` / ``off`` / ``auto`` (the default: the detector starts at the
    first Shared/Var access) -> ``gosim.run(race=...)``. Raises HarnessError for another value."""
    v = os.environ.get(RACE_ENV, "auto")
    if v not in _RACE_MODES:
        raise HarnessError(f"{RACE_ENV}={v!r}: choose on, off or auto")
    return _RACE_MODES[v]


TOLERATE_ENV = "FUZZFARM_TOLERATE"
FAILING_LINE = "fuzzfarm: failing "  # + signature, on stderr just before a failure is raised
TOLERATED_LINE = "fuzzfarm: tolerated "  # + signature, on stderr instead of raising it
# + the bucket signature (fuzzfarm.harness.signature: sha1 of crash type and state) of a raised failure,
# on stderr just before FAILING_LINE: the farm's collector joins the crash to an existing bucket
# of that signature without replaying it (farm/triage.py, "joined unreplayed").
SIGNATURE_LINE = "fuzzfarm: bucket signature "


def bucket_signature(failure) -> str | None:
    """The signature a collector replay of this failure buckets it under
    (``signature.classify``), or None for the failures it folds into another kind (a
    MemoryError is ``oom``, a RunTimeout ``timeout``: the collector replays those)."""
    from fuzzfarm.harness.signature import engine_signature
    return engine_signature({"failed": True, "kind": failure.kind, "exc_class": failure.exc_class,
                             "crash_state": list(failure.crash_state)})


def fixed_may_fail_error(entries, harness: str) -> str | None:
    """One line saying why ``entries`` (a harness's ``FIXED_MAY_FAIL``) is refused, or None.

    ``FIXED_MAY_FAIL`` has one meaning everywhere (proof, fix verdict, fix fuzz, CI, web): a set
    of failure signatures ``"kind at f1 <- f2 <- f3"`` (:func:`failure_signature`, at most the
    three frames of a crash state). A bare kind is refused: it would excuse any new bug of that
    kind the fix brings."""
    if isinstance(entries, str) or not isinstance(entries, (set, frozenset, tuple, list)):
        return (f"harness {harness!r}: FIXED_MAY_FAIL must be a set of signatures \"kind at f1 <- f2 <- f3\", "
                f"got {type(entries).__name__}")
    for e in entries:
        kind, sep, state = e.partition(" at ") if isinstance(e, str) else ("", "", "")
        frames = [f.strip() for f in state.split(" <- ")] if sep else []
        if not kind.strip() or not frames or not all(frames) or len(frames) > 3:
            return (f"harness {harness!r}: FIXED_MAY_FAIL entry {e!r} is not a failure signature; write "
                    f"\"kind at f1 <- f2 <- f3\" (up to 3 frames, as `fuzzfarm replay` prints it): a bare kind "
                    f"would excuse any new bug of that kind on the fixed variant")
    return None


def failure_signature(failure) -> str:
    """``kind at f1 <- f2 <- f3``: a failure's kind and crash state, as ``FUZZFARM_TOLERATE``
    names it."""
    return f"{failure.kind} at {' <- '.join(failure.crash_state)}"


def raise_unless_tolerated(failure) -> None:
    """``TestOneInput``'s ending: raise ``failure`` (so libFuzzer records a crash) unless
    ``FUZZFARM_TOLERATE`` (``;``-separated kinds or ``kind at f1 <- f2 <- f3`` signatures)
    names it; a tolerated failure is one ``fuzzfarm: tolerated SIGNATURE`` line on stderr, so a
    long campaign runs past known findings (an upstream hazard the fixed variant keeps) and
    still stops at anything else. A raised one is announced as ``fuzzfarm: failing SIGNATURE``
    (the farm's fuzz job tolerates it after restarting the fuzzer)."""
    if failure is None:
        return
    sig = failure_signature(failure)
    tolerate = os.environ.get(TOLERATE_ENV)
    if tolerate:
        names = {t.strip() for t in tolerate.split(";")}
        if failure.kind in names or sig in names:
            sys.stderr.write(f"{TOLERATED_LINE}{sig}\n")
            return
    bsig = bucket_signature(failure)
    if bsig:
        sys.stderr.write(f"{SIGNATURE_LINE}{bsig}\n")
    sys.stderr.write(f"{FAILING_LINE}{sig}\n")
    sys.stderr.flush()
    raise failure


# libFuzzer flags every fuzzfarm harness runs with unless the command line sets them.
# -len_control=0: libFuzzer normally keeps inputs a few bytes long until coverage stops growing,
# but here the schedule is the front of the input, one byte per scheduling decision, and a
# short input leaves every decision past the first few at "keep running": the interleavings
# that matter are out of reach. Measured from an empty corpus, seeds 1..3: checker 312-474 ->
# 8-42 runs to the seed bug, cluster-builder 7,956-11,212 -> 170-327.
LIBFUZZER_DEFAULTS = ("-len_control=0",)

# Inputs larger than this are refused everywhere (a run of one input, corpus, crash intake,
# minimization, replay): a schedule never needs that many decisions, and it bounds what one
# message can carry. (engine.model re-exports it for the layers above.)
MAX_INPUT_BYTES = 1 << 20


def libfuzzer_args(args: list[str]) -> list[str]:
    """``args`` (libFuzzer flags and corpus dirs) plus each of :data:`LIBFUZZER_DEFAULTS`
    whose flag it does not set itself."""
    given = {a.split("=", 1)[0] for a in args if a.startswith("-")}
    return list(args) + [d for d in LIBFUZZER_DEFAULTS if d.split("=", 1)[0] not in given]


def atheris_main(test_one_input: Callable[[bytes], None], harness_file: str,
                 variants: tuple[str, ...] | None = None) -> None:
    """Standalone atheris entry: ``python harnesses/x.py [libFuzzer flags] [corpus dirs]``,
    with :data:`LIBFUZZER_DEFAULTS` for flags not given. ``FUZZFARM_VARIANT`` is checked against
    ``variants`` (default: the ``VARIANTS`` of ``test_one_input``'s module) before libFuzzer
    starts, and so are ``FUZZFARM_MAX_STARVATION_S`` and ``FUZZFARM_RACE``: checked in the first
    input instead, a bad value is an uncaught exception to libFuzzer, which writes a crash file and
    exits 77 as if a bug were found.

    libFuzzer re-runs argv[0] through ``sh -c`` for -minimize_crash, -merge, -fork and -jobs
    (docs/TRAPS.md#g1), so argv[0] becomes a quoted ``python /abs/harness.py`` command.
    """
    import shlex

    if variants is None:
        variants = getattr(sys.modules.get(getattr(test_one_input, "__module__", "") or ""), "VARIANTS", None)
    if variants:
        variant_from_env(tuple(variants))  # one line and exit 2 for an unknown one
    max_starvation_s()  # the same for the other settings every run reads (bad: one line, exit 2)
    try:
        race_from_env()
    except HarnessError as e:
        sys.stderr.write(f"fuzzfarm: {e}\n")
        raise SystemExit(2) from None
    import atheris

    argv0 = f"{shlex.quote(sys.executable)} {shlex.quote(os.path.abspath(harness_file))}"
    atheris.Setup([argv0] + libfuzzer_args(sys.argv[1:]), test_one_input)
    _native_stdout_to_stderr()
    atheris.Fuzz()


def _native_stdout_to_stderr() -> None:
    """Send what native code writes to file descriptor 1 to stderr, and keep Python's
    ``sys.stdout`` on the real stdout. atheris writes its crash banner (`` === Uncaught Python
    exception: ===``) and the traceback with C++ ``std::cout``, so a standalone run's stdout
    carried them apart from libFuzzer's crash report (stderr) that they belong to. (libFuzzer's
    own ``-close_fd_mask=1`` would drop the traceback instead.)"""
    sys.stdout.flush()
    real = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = open(real, "w", buffering=1, encoding=sys.stdout.encoding, errors=sys.stdout.errors)


def execute_scenario(main: Callable[[], None], data: bytes, schedule_start: int, scenario: str, *,
                     trace: bool = False, log_schedule: bool = False, schedule_end: int | None = None,
                     scenario_short: int = 0, **run_kw) -> Execution:
    """Run ``main`` under the bytes strategy reading ``data[schedule_start:schedule_end]``.

    The usual tail of a harness's ``execute``: the harness decodes events from its input (with
    :class:`ScenarioReader`: pass its ``schedule_end`` and ``short``), then hands the rest of the
    bytes to the schedule. ``run_kw`` goes to ``gosim.run`` (max_steps,
    check_leaks, leak_grace). Imports the runtime lazily (see the package docstring).
    """
    from fuzzfarm import gosim
    from fuzzfarm.strategies import BytesStrategy
    from fuzzfarm.strategies.recording import RecordingStrategy

    end = len(data) if schedule_end is None else schedule_end
    run_kw.setdefault("max_starvation_s", max_starvation_s())
    if run_kw["max_starvation_s"] == LABEL:  # a realism bound, not a filter (docs/timing.md)
        run_kw["max_starvation_s"] = DEFAULT_MAX_STARVATION_S
        run_kw.setdefault("lift_one_in", LIFT_ONE_IN)
        recorded = LABEL
    else:
        recorded = run_kw["max_starvation_s"]
    if _threads is not None:
        from fuzzfarm.gosim.threaded import run_threaded

        report = run_threaded(main, **_threads)
        return Execution(report, BytesStrategy(b""), scenario, schedule_start, end, scenario_short, recorded)
    bound = recorded
    if _override is not None:
        strat = RecordingStrategy(_override)
        enter_scenario = getattr(_override, "scenario", None)
        if enter_scenario is not None:  # the walk's distinct-schedule tree is per scenario (strategies/novelty.py)
            enter_scenario(len(data[:schedule_start]).to_bytes(4, "little") + data[:schedule_start] + data[end:])
    else:
        strat = BytesStrategy(data, schedule_start, end, log=log_schedule)
    if _race_override is not _UNSET:
        run_kw["race"] = _race_override
    elif os.environ.get(RACE_ENV):
        run_kw["race"] = race_from_env()
    report = gosim.run(main, strategy=strat, trace=trace, **run_kw)
    return Execution(report, strat, scenario, schedule_start, end, scenario_short, bound)

_override = None
_threads: dict | None = None
_UNSET = object()
_race_override = _UNSET


class race_detector:
    """``with race_detector(False): mod.execute(data, variant)`` runs the harness with the data
    race detector forced off (True: on from the start of each run; None: the default, started
    by the first Shared/Var access), whatever the harness passes to ``gosim.run``: how its
    cost is measured (benchmarks/race_cost.py). Not reentrant."""

    def __init__(self, on: bool | None):
        self.on = on

    def __enter__(self):
        global _race_override
        _race_override = self.on
        return self

    def __exit__(self, *exc):
        global _race_override
        _race_override = _UNSET


class on_threads:
    """``with on_threads(seed=.., jitter_s=..): mod.execute(data, variant)`` runs the scenario on
    real OS threads instead of the deterministic runtime: the stress-test baseline for
    benchmarks (``fuzzfarm.gosim.threaded``). The input still supplies the events."""

    def __init__(self, **kw):
        self.kw = kw

    def __enter__(self):
        global _threads
        _threads = self.kw
        return self

    def __exit__(self, *exc):
        global _threads
        _threads = None


class schedule_from:
    """``with schedule_from(strategy): mod.execute(data, variant)`` drives the schedule from
    ``strategy`` (e.g. ``RandomStrategy``/``PCTStrategy``) instead of the input's bytes; the
    input still supplies the events. ``Execution.as_bytes_input`` then gives the equivalent
    bytes reproducer. Not reentrant."""

    def __init__(self, strategy):
        self.strategy = strategy

    def __enter__(self):
        global _override
        _override = self.strategy
        return self

    def __exit__(self, *exc):
        global _override
        _override = None
