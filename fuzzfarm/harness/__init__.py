"""The harness contract and the harness registry.

A harness is a module (installed with fuzzfarm, registered under the entry-point group
``fuzzfarm.harnesses``) that defines:

* ``NAME`` (str), ``VARIANTS`` (tuple of str, first is the default, usually
  ``("buggy", "fixed")``), ``DESCRIPTION`` (one line);
* ``execute(data: bytes, variant: str, *, trace: bool = False, log_schedule: bool = False)
  -> Execution``: decode ``data`` into a scenario and run it under the deterministic runtime;
  never raises the program's failure (it is in ``Execution.report.failure``);
* ``TestOneInput(data: bytes)``: the atheris entry point; raises the failure.

and, for standalone use, ends with ``if __name__ == "__main__": atheris_main(TestOneInput, __file__)``.
:func:`declare` (``fuzzfarm.harness.declaration``) writes all of this from a scenario decoder and a program;
docs/HARNESSES.md is the guide.
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
import sys
from collections.abc import Callable
from types import ModuleType

# ast and shlex are imported where used: a fuzz child needs none of them before its
# first schedule, and each is a share of its start-up (docs/BENCHMARKS.md#startup).

from .scenario_reader import ScenarioReader  # noqa: F401 - part of the harness contract

ENTRY_POINT_GROUP = "fuzzfarm.harnesses"
VARIANT_ENV = "FUZZFARM_VARIANT"
_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # fuzzfarm/
# fuzzfarm code whose change changes what an input does: hashed into every harness's source hash
# (the harness's own modules are added per harness, see HarnessInfo.source_files).
_BEHAVIOUR_TREES = ("gosim", "strategies", "ports", "examples")
_BEHAVIOUR_FILES = ("harness/scenario_reader.py", "harness/__init__.py", "harness/declaration.py")
RESTART_HINT = "restart the workers so they see it, then resubmit"


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


@dataclasses.dataclass(frozen=True)
class HarnessInfo:
    """A registered harness: ``name``, importable ``module`` and the distribution providing it."""

    name: str
    module: str

    def load(self) -> ModuleType:
        """Import the harness module. Raises HarnessError naming the cause (syntax error,
        missing dependency, missing contract attribute)."""
        try:
            try:
                mod = importlib.import_module(self.module)
            except ModuleNotFoundError as e:
                if not _missing_is_own(e, self.module) or not refresh_installed():
                    raise
                mod = importlib.import_module(self.module)  # installed after this process started
        except SyntaxError as e:
            raise HarnessError(f"harness {self.name!r} ({self.module}) has a syntax error at "
                               f"{e.filename}:{e.lineno}: SyntaxError: {e.msg}; fix the harness and reinstall it") from e
        except ImportError as e:
            raise HarnessError(f"harness {self.name!r} ({self.module}) failed to import: {e}; "
                               f"install its dependencies on this worker") from e
        except Exception as e:  # noqa: BLE001 - any import-time crash is the harness's fault
            raise HarnessError(f"harness {self.name!r} ({self.module}) crashed on import: "
                               f"{type(e).__name__}: {e}") from e
        for attr in ("NAME", "VARIANTS", "execute", "TestOneInput"):
            if not hasattr(mod, attr):
                raise HarnessError(f"harness {self.name!r} ({self.module}) lacks {attr}; see fuzzfarm.harness for the contract")
        bad = fixed_may_fail_error(getattr(mod, "FIXED_MAY_FAIL", frozenset()), self.name)
        if bad:  # a hand-written module constant (declare() refuses it at the declaration)
            raise HarnessError(bad)
        return mod

    @property
    def path(self) -> str:
        """Source file of the harness module, found without importing it (a package installed
        after this process started is found by :func:`refresh_installed`)."""
        origin = _module_file(self.module)
        if origin is None and refresh_installed():
            origin = _module_file(self.module)
        if origin is None:
            raise HarnessError(f"harness {self.name!r} is registered but its module {self.module} is not importable "
                               f"here (installed after this process started, or removed?); {RESTART_HINT}")
        return origin

    def own_packages(self) -> frozenset[str]:
        """Top-level package names of the distribution that registers this harness (its
        ``top_level.txt``, else the packages its files are in) plus the harness module's own."""
        from importlib import metadata  # on first use (docs/BENCHMARKS.md#startup)
        names = {self.module.split(".")[0]}
        for ep in metadata.entry_points(group=ENTRY_POINT_GROUP, name=self.name):
            dist = getattr(ep, "dist", None)
            if ep.value != self.module or dist is None:
                continue
            top = dist.read_text("top_level.txt")
            if top:
                names.update(line.strip() for line in top.splitlines() if line.strip())
            else:
                names.update(str(f).split("/")[0].removesuffix(".py") for f in (dist.files or ())
                             if str(f).endswith(".py") and ".dist-info" not in str(f))
        return frozenset(names)

    def source_files(self) -> list[tuple[str, str]]:
        """``(name, path)`` of every file the source hash covers: the harness module, every
        module it imports (statically, transitively, anywhere in the file) from its own
        distribution's packages, and fuzzfarm's behaviour code (``_BEHAVIOUR_TREES``/``_FILES``).
        Modules loaded by name at run time (``importlib.import_module``) are not followed."""
        own = self.own_packages() - {"fuzzfarm"}
        files = [(f"harness/{os.path.basename(self.path)}", self.path)]
        files += [(f"module/{m}", f) for m, f in sorted(_import_closure(self.module, own).items()) if m != self.module]
        files += [(fn, os.path.join(_PKG_DIR, fn)) for fn in _BEHAVIOUR_FILES]
        for tree in _BEHAVIOUR_TREES:
            root = os.path.join(_PKG_DIR, tree)
            for dirpath, dirnames, filenames in os.walk(root):
                dirnames.sort()
                for fn in sorted(filenames):
                    if fn.endswith(".py"):
                        full = os.path.join(dirpath, fn)
                        files.append((os.path.relpath(full, _PKG_DIR), full))
        return files

    def source_hash(self) -> str:
        """sha256 (hex) over :meth:`source_files`: what an input's behaviour depends on.

        Submitter and worker compare it: a different hash means they would run different code.
        """
        h = hashlib.sha256()
        for rel, full in self.source_files():
            with open(full, "rb") as f:
                h.update(rel.encode() + b"\0" + f.read() + b"\0")
        return h.hexdigest()


def _module_file(name: str) -> str | None:
    """The source file of module ``name`` (``.py``), found without importing it or its
    packages (only the top-level package's location is asked of the import system)."""
    parts = name.split(".")
    try:
        spec = importlib.util.find_spec(parts[0])
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if len(parts) == 1:
        return spec.origin if spec.origin and spec.origin.endswith(".py") else None
    dirs = list(spec.submodule_search_locations or [])
    for i, part in enumerate(parts[1:], 1):
        last = i == len(parts) - 1
        nxt = []
        for d in dirs:
            if last and os.path.isfile(os.path.join(d, part + ".py")):
                return os.path.join(d, part + ".py")
            if os.path.isdir(os.path.join(d, part)):
                nxt.append(os.path.join(d, part))
        dirs = nxt
        if last:
            for d in dirs:
                if os.path.isfile(os.path.join(d, "__init__.py")):
                    return os.path.join(d, "__init__.py")
    return None


def _imported_names(path: str, module: str) -> set[str]:
    """Dotted names an ``import`` statement anywhere in ``path`` (module ``module``) may load:
    the module, its parent packages, and ``from X import y`` both as ``X`` and ``X.y``."""
    import ast

    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
    except (OSError, SyntaxError, ValueError):
        return set()
    package = module if os.path.basename(path) == "__init__.py" else module.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - (node.level - 1)] if package else []
                base = ".".join(anchor + ([base] if base else []))
            if base:
                names.add(base)
                names.update(f"{base}.{a.name}" for a in node.names if a.name != "*")
    out = set()
    for n in names:
        parts = n.split(".")
        out.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    return out


def _import_closure(module: str, packages: frozenset[str]) -> dict[str, str]:
    """``{module: file}`` for ``module`` and every module in ``packages`` it imports, transitively."""
    seen: dict[str, str] = {}
    parts = module.split(".")
    todo = [module] + [".".join(parts[:i]) for i in range(1, len(parts))]  # its packages' __init__ run too
    while todo:
        m = todo.pop()
        if m in seen:
            continue
        f = _module_file(m)
        if f is None:
            continue
        seen[m] = f
        todo.extend(n for n in _imported_names(f, m) if n.split(".")[0] in packages and n not in seen)
    return seen


def _missing_is_own(e: ModuleNotFoundError, module: str) -> bool:
    """Whether the missing module is the harness module or one of its packages (not a dependency)."""
    return bool(e.name) and (module == e.name or module.startswith(e.name + "."))


def refresh_installed() -> bool:
    """Let this long-running process see packages installed after it started: re-read the
    ``.pth`` files of the site directories (``pip install -e`` puts the path or import hook of
    an editable install there; they are read once, at interpreter start) and drop the import
    system's directory caches. Returns whether anything could change (always True)."""
    import site

    dirs = list(site.getsitepackages()) if hasattr(site, "getsitepackages") else []
    if site.ENABLE_USER_SITE and hasattr(site, "getusersitepackages"):
        dirs.append(site.getusersitepackages())
    for d in dirs:
        if os.path.isdir(d):
            site.addsitedir(d)
    importlib.invalidate_caches()
    return True


def registry() -> dict[str, HarnessInfo]:
    """Every installed harness by name (entry points of group ``fuzzfarm.harnesses``)."""
    from importlib import metadata  # on first use: an atheris child never needs it (docs/BENCHMARKS.md#startup)

    out = {}
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        out[ep.name] = HarnessInfo(ep.name, ep.value)
    return dict(sorted(out.items()))


def get(name: str) -> HarnessInfo:
    """The harness registered as ``name``. Raises HarnessError listing the known names."""
    reg = registry()
    if name not in reg:
        refresh_installed()  # installed after this process started?
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


# The realism bound (docs/timing.md): the longest virtual time a runnable goroutine waits in a
# realistic schedule. 0.1 s is ten of Go's 10 ms scheduler time slices: a goroutine that waited
# longer ran on a starved machine (GC assists, a full run queue, a loaded host). By default it
# is a label on findings, not a filter on the search (LABEL): real bugs that need more (HC-20)
# are still found, and say how much they need.
DEFAULT_MAX_STARVATION_S = 0.1
MAX_STARVATION_ENV = "FUZZFARM_MAX_STARVATION_S"
# The default setting: runs keep the realism bound until a timer could fire past it; then one
# schedule decision in LIFT_ONE_IN options lets the run go on without it (gosim Runtime
# ``lift_one_in``), so about one such run in LIFT_ONE_IN searches unbounded starvation.
LABEL = "label"
LIFT_ONE_IN = 4


def max_starvation_s() -> float | str | None:
    """The starvation bound of harness runs: ``FUZZFARM_MAX_STARVATION_S`` (seconds: a filter;
    ``none``: no bound in time; ``label``: the realism bound as a label, see :data:`LABEL`),
    else ``label``. An input replays the same only under the same setting. Exits with a clear
    message for a bad value. A campaign's own bound (``fuzzfarm submit --max-starvation``)
    reaches its runs as this variable."""
    raw = os.environ.get(MAX_STARVATION_ENV)
    if raw is None or raw == "":
        return LABEL
    try:
        return parse_max_starvation(raw)
    except ValueError as e:
        sys.stderr.write(f"fuzzfarm: {MAX_STARVATION_ENV}={e}; unset it for the default ({LABEL})\n")
        raise SystemExit(2)


def parse_max_starvation(raw) -> float | str | None:
    """A starvation bound given as text or a number: seconds >= 0 (a filter), ``none`` (no bound
    in time) as None, ``label`` (the realism bound as a label, :data:`LABEL`) as ``"label"``.
    ValueError (saying what was given) for anything else."""
    if isinstance(raw, str) and raw.strip().lower() == "none":
        return None
    if isinstance(raw, str) and raw.strip().lower() == LABEL:
        return LABEL
    v = -1.0
    # a bool is not a number of seconds (float(True) is 1.0); "1_0" is Python syntax, not a
    # number a user writes; inf is not finite JSON (repro.json) - "none" says "no bound"
    if not isinstance(raw, bool) and not (isinstance(raw, str) and "_" in raw):
        try:
            v = float(raw)
        except (TypeError, ValueError):
            pass
    if not 0 <= v < float("inf"):  # also nan
        raise ValueError(f"{raw!r} is not a finite number of seconds >= 0, 'none' (no bound) or 'label' "
                         f"(the default: the {DEFAULT_MAX_STARVATION_S:g} s realism bound as a label)")
    return v


def max_starvation_text(bound: float | str | None) -> str:
    """The inverse of :func:`parse_max_starvation`: what ``FUZZFARM_MAX_STARVATION_S`` is set
    to for ``bound`` (``repr`` of the float, so the child parses back the very same number)."""
    return "none" if bound is None else LABEL if bound == LABEL else repr(float(bound))


def bound_words(bound) -> str:
    """A setting as users read it: ``0.5 s``, ``none``, or ``label (0.1 s realism bound)``."""
    if bound == LABEL:
        return f"label ({DEFAULT_MAX_STARVATION_S:g} s realism bound, unbounded runs searched too)"
    return "none" if bound is None else f"{float(bound):g} s"


def starved_goroutines(outcome: dict, realism_s: float = DEFAULT_MAX_STARVATION_S) -> list:
    """``[[gid, name], ...]`` of a run outcome (``fuzzfarm.harness.runone``): every goroutine kept
    waiting past the realism bound, else the one that waited longest (empty: none waited)."""
    over = [[r[0], r[1]] for r in outcome.get("starved_all") or () if r[2] > realism_s]
    if over:
        return over
    return [list(outcome["starved"])] if outcome.get("starved") else []


def starvation_need(starvation_s, starved=None, realism_s: float = DEFAULT_MAX_STARVATION_S) -> str:
    """What a finding needs, labelled against the realism bound (docs/timing.md): e.g. ``needs
    G3 (processor.run) runnable but not running for 1 s (over the 0.1 s realism bound)``.
    ``starved``: ``[gid, name]``, a list of them (:func:`starved_goroutines`) or None;
    ``starvation_s`` None: unknown."""
    if starvation_s in (None, ""):
        return "starvation not measured"
    s = float(starvation_s)
    if starved and not isinstance(starved[0], (list, tuple)):
        starved = [starved]
    who = " and ".join(f"G{g[0]} ({g[1]})" for g in starved) if starved else "a goroutine"
    if s <= 0:
        return f"realistic: needs no goroutine kept runnable by early timer firings (within the {realism_s:g} s realism bound)"
    side = "over" if s > realism_s else "within"
    return f"needs {who} runnable but not running for {s:g} s ({side} the {realism_s:g} s realism bound)"


def is_realistic(starvation_s, realism_s: float = DEFAULT_MAX_STARVATION_S) -> bool:
    """True when a finding needs no more starvation than the realism bound (unknown: True)."""
    return starvation_s in (None, "") or float(starvation_s) <= realism_s


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


# The declaration API (fuzzfarm.harness.declaration) is part of this contract: `from fuzzfarm.harness import declare`.
from fuzzfarm.harness.declaration import Harness, Program, declare  # noqa: E402,F401 - re-exported; declare imports this module
