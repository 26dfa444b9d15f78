"""The harness contract and the harness registry.

A harness is a module (installed with fuzzfarm, registered under the entry-point group
``fuzzfarm.harnesses``) that defines:

* ``NAME`` (str), ``VARIANTS`` (tuple of str, first is the default, usually
  ``("buggy", "fixed")``), ``DESCRIPTION`` (one line);
* ``execute(data: bytes, variant: str, *, trace: bool = False, log_schedule: bool = False)
  -> Execution``: decode ``data`` into a scenario and run it under the deterministic runtime;
  never raises the program's failure (it is in ``Execution.report.failure``);
* ``TestOneInput(data: bytes)``: the atheris entry point; raises the failure.

and, for standalone use, ends with ``if __name__ == "__main__": atheris_main(TestOneInput)``.
A harness reads its scenario from the end of the input with :class:`ScenarioReader` and hands
the front to :func:`execute_scenario` as the schedule, so that a run driven by another strategy
can be written back as a bytes reproducer (:meth:`Execution.as_bytes_input`).
Workers resolve harnesses by registered name only; a submit never carries code or a path.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import importlib.util
import os
import shlex
import sys
from importlib import metadata
from types import ModuleType
from typing import Callable

from .scenario_reader import ScenarioReader  # noqa: F401 - part of the harness contract

ENTRY_POINT_GROUP = "fuzzfarm.harnesses"
VARIANT_ENV = "FUZZFARM_VARIANT"
_PKG_DIR = os.path.dirname(os.path.abspath(__file__))
# Code whose change changes what an input does: hashed into the harness's source hash.
_BEHAVIOUR_TREES = ("gosim", "strategies", "ports")
_BEHAVIOUR_FILES = ("scenario_reader.py", "harness.py")


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
        scenario read go between the schedule and the scenario bytes (``fuzzfarm.scenario_reader``)
        so the scenario decodes the same."""
        rec = getattr(self.schedule, "recorded", None)
        if rec is None:
            return data
        return data[:self.schedule_start] + bytes(rec) + bytes(self.scenario_short) + data[self.schedule_end:]


@dataclasses.dataclass(frozen=True)
class HarnessInfo:
    """A registered harness: ``name``, importable ``module`` and the distribution providing it."""

    name: str
    module: str

    def load(self) -> ModuleType:
        """Import the harness module. Raises HarnessError naming the cause (syntax error,
        missing dependency, missing contract attribute)."""
        try:
            mod = importlib.import_module(self.module)
        except SyntaxError as e:
            raise HarnessError(f"harness {self.name!r} ({self.module}) has a syntax error at "
                               f"{e.filename}:{e.lineno}: {e.msg}; fix the harness and reinstall it") from e
        except ImportError as e:
            raise HarnessError(f"harness {self.name!r} ({self.module}) failed to import: {e}; "
                               f"install its dependencies on this worker") from e
        except Exception as e:  # noqa: BLE001 - any import-time crash is the harness's fault
            raise HarnessError(f"harness {self.name!r} ({self.module}) crashed on import: "
                               f"{type(e).__name__}: {e}") from e
        for attr in ("NAME", "VARIANTS", "execute", "TestOneInput"):
            if not hasattr(mod, attr):
                raise HarnessError(f"harness {self.name!r} ({self.module}) lacks {attr}; see fuzzfarm.harness for the contract")
        return mod

    @property
    def path(self) -> str:
        """Source file of the harness module, found without importing it."""
        spec = importlib.util.find_spec(self.module)
        if spec is None or spec.origin is None:
            raise HarnessError(f"harness {self.name!r}: module {self.module} is not installed")
        return spec.origin

    def source_hash(self) -> str:
        """sha256 over the harness file and the runtime/port sources it runs on (hex).

        Submitter and worker compare it: a different hash means they would run different code.
        """
        h = hashlib.sha256()
        files = [(f"harness/{os.path.basename(self.path)}", self.path)]
        files += [(fn, os.path.join(_PKG_DIR, fn)) for fn in _BEHAVIOUR_FILES]
        for tree in _BEHAVIOUR_TREES:
            root = os.path.join(_PKG_DIR, tree)
            for dirpath, dirnames, filenames in os.walk(root):
                dirnames.sort()
                for fn in sorted(filenames):
                    if fn.endswith(".py"):
                        full = os.path.join(dirpath, fn)
                        files.append((os.path.relpath(full, _PKG_DIR), full))
        for rel, full in files:
            with open(full, "rb") as f:
                h.update(rel.encode() + b"\0" + f.read() + b"\0")
        return h.hexdigest()


def registry() -> dict[str, HarnessInfo]:
    """Every installed harness by name (entry points of group ``fuzzfarm.harnesses``)."""
    out = {}
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        out[ep.name] = HarnessInfo(ep.name, ep.value)
    return dict(sorted(out.items()))


def get(name: str) -> HarnessInfo:
    """The harness registered as ``name``. Raises HarnessError listing the known names."""
    reg = registry()
    if name not in reg:
        known = ", ".join(reg) or "none (is fuzzfarm installed with pip install -e .?)"
        raise HarnessError(f"unknown harness {name!r}; installed harnesses: {known}")
    return reg[name]


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


TOLERATE_ENV = "FUZZFARM_TOLERATE"
FAILING_LINE = "fuzzfarm: failing "  # + signature, on stderr just before a failure is raised
TOLERATED_LINE = "fuzzfarm: tolerated "  # + signature, on stderr instead of raising it


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


def libfuzzer_args(args: list[str]) -> list[str]:
    """``args`` (libFuzzer flags and corpus dirs) plus each of :data:`LIBFUZZER_DEFAULTS`
    whose flag it does not set itself."""
    given = {a.split("=", 1)[0] for a in args if a.startswith("-")}
    return list(args) + [d for d in LIBFUZZER_DEFAULTS if d.split("=", 1)[0] not in given]


def atheris_main(test_one_input: Callable[[bytes], None], harness_file: str) -> None:
    """Standalone atheris entry: ``python harnesses/x.py [libFuzzer flags] [corpus dirs]``,
    with :data:`LIBFUZZER_DEFAULTS` for flags not given.

    libFuzzer re-runs argv[0] through ``sh -c`` for -minimize_crash, -merge, -fork and -jobs
    (ENVIRONMENT.md G1), so argv[0] becomes a quoted ``python /abs/harness.py`` command.
    """
    import atheris

    argv0 = f"{shlex.quote(sys.executable)} {shlex.quote(os.path.abspath(harness_file))}"
    atheris.Setup([argv0] + libfuzzer_args(sys.argv[1:]), test_one_input)
    atheris.Fuzz()


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
    if _threads is not None:
        from fuzzfarm.gosim.threaded import run_threaded

        report = run_threaded(main, **_threads)
        return Execution(report, BytesStrategy(b""), scenario, schedule_start, end, scenario_short)
    bound = run_kw["max_starvation_s"]
    if _override is not None:
        strat = RecordingStrategy(_override)
    else:
        strat = BytesStrategy(data, schedule_start, end, log=log_schedule)
    report = gosim.run(main, strategy=strat, trace=trace, **run_kw)
    return Execution(report, strat, scenario, schedule_start, end, scenario_short, bound)


# The longest virtual time a runnable goroutine may wait while the schedule fires timers early
# (docs/timing.md). 0.1 s is ten of Go's 10 ms scheduler time slices: a goroutine that waited
# longer ran on a starved machine, which a reproducer should not need. The seed bugs stay
# findable under it (their triggers are event orders; docs/timing.md has the figures).
DEFAULT_MAX_STARVATION_S = 0.1
MAX_STARVATION_ENV = "FUZZFARM_MAX_STARVATION_S"


def max_starvation_s() -> float | None:
    """The starvation bound of harness runs: ``FUZZFARM_MAX_STARVATION_S`` (seconds, or
    ``none`` for no bound in time), else :data:`DEFAULT_MAX_STARVATION_S`. An input replays the
    same only under the same bound. Exits with a clear message for a bad value."""
    raw = os.environ.get(MAX_STARVATION_ENV)
    if raw is None or raw == "":
        return DEFAULT_MAX_STARVATION_S
    if raw.strip().lower() == "none":
        return None
    try:
        v = float(raw)
    except ValueError:
        v = -1.0
    if not v >= 0:
        sys.stderr.write(f"fuzzfarm: {MAX_STARVATION_ENV}={raw!r} is not a number of seconds >= 0 or 'none'; "
                         f"unset it for the default {DEFAULT_MAX_STARVATION_S:g} s\n")
        raise SystemExit(2)
    return v


_override = None
_threads: dict | None = None


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
