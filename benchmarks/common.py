"""Shared pieces of the benchmark suite: profiles (quick / full budgets), seed-bug predicates,
subprocesses with timestamped output, per-process CPU accounting, machine description, and the
one output format every benchmark uses.

A benchmark's ``run(profile, ...)`` returns a *section*::

    {"section": "time_to_bug", "title": "...", "quick": bool, "settings": {...},
     "rows": [[case, figure, value], ...],   # what the terminal table and the doc show
     "data": {...},                           # every measured number, for --json
     "notes": ["..."], "wall_s": float}

Nothing here hard-codes a figure; budgets are inputs, results are measured.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import platform
import queue
import re
import shutil
import subprocess
import sys
import threading
import time
from importlib import metadata
from typing import Callable, Iterable

# The benchmark processes load harness modules only to classify outcomes and to replay:
# never instrumented (only the atheris children are). Must run before any harness import.
from fuzzfarm.engine.guard import skip_instrumentation

skip_instrumentation()

from fuzzfarm import harness as H  # noqa: E402
from fuzzfarm.harness import child as process  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = sys.executable
CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


# ---- profiles -------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Profile:
    """Budgets of one suite run. ``quick`` is for CI (a few minutes on 2 cores); ``full`` is
    what docs/BENCHMARKS.md is produced with (~15-20 min when the machine is quiet)."""

    name: str
    # 1. time to bug
    seeds: tuple[int, ...]              # random / pct (in-process walks)
    bytes_seeds: tuple[int, ...]        # bytes under a real atheris subprocess
    bytes_max_s: float                  # per seed: libFuzzer -max_total_time
    bytes_max_runs: int                 # per seed: libFuzzer -runs
    walk_max_s: float                   # per seed, random / pct
    walk_max_runs: int
    fixed_s: float                      # per fixed variant x strategy: runs without a failure
    # 2. stress
    stress_seeds: tuple[int, ...]       # wall time per seed: walk_max_s, the same as fuzzfarm's walks
    stress_tune_s: float                # per candidate setting, on a tuning seed
    # 3. throughput
    throughput_s: float
    # 4/6. farm scaling and Redis traffic
    scaling_s: float
    # 5. end to end
    e2e_duration_s: float
    e2e_timeout_s: float
    e2e_jobs: int
    e2e_minimize_budget_s: float | None  # None: the farm's default
    e2e_verify_runs: int | None          # None: the farm's default
    # 7. minimization
    min_inputs: int                     # inputs minimized per bucket
    min_budget_s: float

    @property
    def quick(self) -> bool:
        return self.name == "quick"


PROFILES = {
    "quick": Profile(
        name="quick", seeds=(1, 2, 3), bytes_seeds=(1,), bytes_max_s=15, bytes_max_runs=50_000,
        walk_max_s=2, walk_max_runs=20_000, fixed_s=1.5,
        stress_seeds=(1,), stress_tune_s=0.3,
        throughput_s=3, scaling_s=10,
        e2e_duration_s=10, e2e_timeout_s=150, e2e_jobs=1, e2e_minimize_budget_s=None, e2e_verify_runs=None,
        min_inputs=1, min_budget_s=5),
    "full": Profile(
        name="full", seeds=tuple(range(1, 11)), bytes_seeds=tuple(range(1, 11)), bytes_max_s=45,
        bytes_max_runs=200_000, walk_max_s=10, walk_max_runs=100_000, fixed_s=8,
        stress_seeds=(1, 2, 3), stress_tune_s=1.5,
        throughput_s=8, scaling_s=20,
        e2e_duration_s=60, e2e_timeout_s=240, e2e_jobs=2, e2e_minimize_budget_s=None, e2e_verify_runs=None,
        min_inputs=3, min_budget_s=30),
}


def profile(quick: bool) -> Profile:
    return PROFILES["quick" if quick else "full"]


# ---- harnesses and seed bugs ----------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class SeedBug:
    """The known upstream bug a harness was built for: which variant has it and how to tell
    its failure from any other (kind + crash state of a runone outcome or a GoFailure)."""

    harness: str
    variant: str
    description: str
    kinds: tuple[str, ...]
    top_frame: str | None = None        # crash_state[0] must be this
    in_state: str | None = None         # ... or this must be somewhere in crash_state

    def matches(self, kind: str | None, crash_state: Iterable[str] | None) -> bool:
        state = list(crash_state or [])
        if kind not in self.kinds:
            return False
        if self.top_frame is not None and (not state or state[0] != self.top_frame):
            return False
        if self.in_state is not None and self.in_state not in state:
            return False
        return True

    def matches_outcome(self, out: dict) -> bool:
        return bool(out.get("failed")) and self.matches(out.get("kind"), out.get("crash_state"))

    def matches_failure(self, f) -> bool:
        return f is not None and self.matches(f.kind, f.crash_state)


SEED_BUGS = {
    "checker": SeedBug("checker", "buggy", "nil cancel in objectChecker.Stop (perf-tests #2220)",
                       ("goroutine panic",), top_frame="ObjectChecker.stop"),
    "cluster-builder": SeedBug("cluster-builder", "buggy", "concurrent map writes in defaultOpts (prow #288)",
                               ("concurrent map writes", "concurrent map iteration and map write"),
                               in_state="default_opts"),
}


@dataclasses.dataclass
class HarnessSpec:
    name: str
    module: str
    path: str
    variants: tuple[str, ...]
    seed_bug: SeedBug | None
    may_fail_fixed: tuple[str, ...]     # the harness's FIXED_MAY_FAIL (tolerated on fixed variants)
    tolerate_env: str | None            # FUZZFARM_TOLERATE (fuzzfarm.harness.raise_unless_tolerated)

    @property
    def fixed_variants(self) -> tuple[str, ...]:
        bug = self.seed_bug.variant if self.seed_bug else None
        return tuple(v for v in self.variants if v != bug)


def harnesses(only: Iterable[str] | None = None, *,
              seed_bug_notes: bool = False) -> tuple[list[HarnessSpec], list[str]]:
    """Registered harnesses that load here, and a note per one that does not (and, with
    ``seed_bug_notes``, per one without a seed-bug predicate: measured for throughput only)."""
    specs, notes = [], []
    wanted = set(only or [])
    for name, info in H.registry().items():
        if wanted and name not in wanted:
            continue
        try:
            mod = info.load()
        except H.HarnessError as e:
            notes.append(f"harness {name!r} skipped: {e}")
            continue
        bug = SEED_BUGS.get(name)
        if bug is None and seed_bug_notes:
            notes.append(f"harness {name!r} has no seed-bug predicate in benchmarks/common.py: "
                         f"throughput only")
        specs.append(HarnessSpec(name, info.module, os.path.abspath(info.path), tuple(mod.VARIANTS), bug,
                                 tuple(sorted(getattr(mod, "FIXED_MAY_FAIL", ()) or ())),
                                 H.TOLERATE_ENV))
    return specs, notes


# ---- subprocesses ---------------------------------------------------------------------------
def child_env(extra: dict | None = None) -> dict:
    """The engine's harness-process environment (PYTHONHASHSEED=0, unbuffered) plus ``extra``
    and the repo on PYTHONPATH (so ``-m benchmarks.x`` children work from any cwd)."""
    return process.child_env(extra, pythonpath=ROOT)


def run_streaming(argv: list[str], *, env: dict, cwd: str, timeout: float,
                  on_line: Callable[[float, str], bool | None] | None = None
                  ) -> tuple[int | None, list[tuple[float, str]]]:
    """Run ``argv`` (own session, dies with us: PDEATHSIG), timestamping every output line
    (stdout and stderr merged) with ``time.monotonic()``. ``on_line(t, line)`` returning True
    stops the process early. Returns (exit code or None when killed, [(t, line), ...])."""
    proc = process.spawn(argv, env=env, cwd=cwd, stdout=subprocess.PIPE)
    lines: list[tuple[float, str]] = []
    q: queue.Queue = queue.Queue()

    def reader() -> None:
        for raw in iter(proc.stdout.readline, b""):
            q.put((time.monotonic(), raw.decode("utf-8", "replace").rstrip("\n")))
        q.put(None)

    th = threading.Thread(target=reader, daemon=True)
    th.start()
    deadline = time.monotonic() + timeout
    killed = False
    try:
        while True:
            try:
                item = q.get(timeout=max(0.01, min(0.25, deadline - time.monotonic())))
            except queue.Empty:
                if time.monotonic() > deadline:
                    killed = True
                    break
                continue
            if item is None:
                break
            lines.append(item)
            if on_line is not None and on_line(*item):
                killed = True
                break
    finally:
        if killed or proc.poll() is None:
            process.kill_group(proc)
        else:
            proc.wait()
        th.join(2)
        proc.stdout.close()
    return (None if killed else proc.returncode), lines


def run_json_child(argv: list[str], *, timeout: float, env: dict | None = None) -> list[dict]:
    """Run a ``python -m benchmarks.x --child ...`` process; returns the JSON lines it printed.
    Raises RuntimeError with its last output lines when it fails."""
    rc, lines = run_streaming(argv, env=env or child_env(), cwd=ROOT, timeout=timeout)
    out = []
    for _, ln in lines:
        if ln.startswith("{"):
            try:
                out.append(json.loads(ln))
            except ValueError:
                pass
    if rc != 0:
        tail = "\n".join(ln for _, ln in lines[-15:])
        raise RuntimeError(f"{' '.join(argv[1:4])} exited with {rc}:\n{tail}")
    return out


# ---- CPU accounting -------------------------------------------------------------------------
def _read_stat(pid: int) -> tuple[int, float, float] | None:
    """(ppid, own CPU s, waited-for children CPU s) of ``pid`` from /proc, or None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read().decode("ascii", "replace")
    except OSError:
        return None
    rest = raw[raw.rfind(")") + 2:].split()
    # fields after the comm: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14)
    try:
        return int(rest[1]), (int(rest[11]) + int(rest[12])) / CLK_TCK, (int(rest[13]) + int(rest[14])) / CLK_TCK
    except (IndexError, ValueError):
        return None


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
    except OSError:
        return ""


def _children_map() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            st = _read_stat(int(d))
            if st is not None:
                kids.setdefault(st[0], []).append(int(d))
    return kids


class CPUSampler:
    """CPU seconds of process trees, by category, sampled from /proc every ``interval`` s
    (psutil is not needed). ``roots``: {pid: category}; descendants are categorised by
    ``classify(cmdline, parent_category)``. A process is counted at its last sample; the CPU of
    children that came and went between samples reaches us through their parent's
    cutime/cstime and is counted in the parent's category."""

    def __init__(self, roots: dict[int, str], classify: Callable[[str, str], str], interval: float = 0.1):
        self.roots = dict(roots)
        self.classify = classify
        self.interval = interval
        self.info: dict[int, dict] = {}   # pid -> {cat, ppid, cpu, ccpu, cpu0, ccpu0, gone}
        self._stop = threading.Event()
        self._th: threading.Thread | None = None
        self._first = True

    def add_root(self, pid: int, category: str) -> None:
        self.roots[pid] = category
        self.sample()

    def sample(self) -> None:
        kids = _children_map()
        seen = set()
        stack = [(pid, None, cat) for pid, cat in self.roots.items()]
        while stack:
            pid, ppid, cat = stack.pop()
            st = _read_stat(pid)
            if st is None:
                continue
            seen.add(pid)
            rec = self.info.get(pid)
            if rec is None:
                cmd = _cmdline(pid)
                if ppid is not None:
                    cat = self.classify(cmd, cat)
                new = not self._first  # born after the first sample: all of its CPU is ours
                rec = self.info[pid] = {"cat": cat, "ppid": st[0], "cpu0": 0.0 if new else st[1],
                                        "ccpu0": 0.0 if new else st[2], "new": new, "cmd": cmd[:120]}
            elif ppid is not None and not rec.get("execd"):
                # first seen between fork and exec, it had its parent's command line (a loaded
                # machine widens that window): classified as its parent, a fuzz child's whole CPU
                # went to "celery fuzz worker". Classify it again once it has exec'd.
                # A zombie's command line reads empty: it is the same exited process, not a new
                # exec, and keeps its category (it was counted as its parent's otherwise).
                cmd = _cmdline(pid)
                if cmd and cmd[:120] != rec["cmd"]:
                    rec["cat"], rec["cmd"], rec["execd"] = self.classify(cmd, cat), cmd[:120], True
            rec["cpu"], rec["ccpu"] = st[1], st[2]
            for k in kids.get(pid, ()):
                stack.append((k, pid, rec["cat"]))
        for pid, rec in self.info.items():
            if pid not in seen:
                rec["gone"] = True
        self._first = False

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            self.sample()

    def start(self) -> "CPUSampler":
        self.sample()
        self._th = threading.Thread(target=self._loop, daemon=True)
        self._th.start()
        return self

    def stop(self) -> dict[str, float]:
        self._stop.set()
        if self._th:
            self._th.join()
        self.sample()
        return self.totals()

    def totals(self) -> dict[str, float]:
        """CPU seconds per category since the first sample."""
        out: dict[str, float] = {}
        for pid, rec in self.info.items():
            own = rec["cpu"] - rec["cpu0"]
            out[rec["cat"]] = out.get(rec["cat"], 0.0) + own
            # CPU of children this process waited for, minus what we counted of them ourselves:
            # the last < interval of each gone child (and children too short to be seen). It
            # goes to the gone children's categories, pro rata to what was seen of each (a
            # fuzzer's or a merge's tail is theirs, not its supervisor's); to this process's
            # own category when no child of it was seen.
            waited = rec["ccpu"] - rec["ccpu0"]
            gone = [r for r in self.info.values() if r["ppid"] == pid and r.get("gone")]
            seen_kids = sum(r["cpu"] + r["ccpu"] for r in gone)
            rest = max(0.0, waited - seen_kids)
            if rest and seen_kids > 0:
                for r in gone:
                    out[r["cat"]] = out.get(r["cat"], 0.0) + rest * (r["cpu"] + r["ccpu"]) / seen_kids
            elif rest:
                out[rec["cat"]] = out.get(rec["cat"], 0.0) + rest
        return {k: round(v, 3) for k, v in out.items()}


def system_busy() -> tuple[float, float]:
    """(busy CPU s, total CPU s) of the whole machine so far, from /proc/stat."""
    with open("/proc/stat") as f:
        parts = [float(x) for x in f.readline().split()[1:]]
    idle = parts[3] + (parts[4] if len(parts) > 4 else 0.0)
    total = sum(parts[:8])
    return (total - idle) / CLK_TCK, total / CLK_TCK


# ---- machine description --------------------------------------------------------------------
def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def machine() -> dict:
    """CPU model, cores, memory, load, kernel, and the versions that matter here."""
    model = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for ln in f:
                if ln.startswith("model name"):
                    model = ln.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem_kb = 0
    try:
        with open("/proc/meminfo") as f:
            for ln in f:
                if ln.startswith("MemTotal:"):
                    mem_kb = int(ln.split()[1])
    except OSError:
        pass
    try:
        nproc = subprocess.run(["nproc"], capture_output=True, text=True, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        nproc = str(os.cpu_count())
    redis_v = "not installed"
    from fuzzfarm.farm.embedded import redis_server_binary
    rb = redis_server_binary()
    if rb:
        try:
            version = subprocess.run([rb, "--version"], capture_output=True, text=True, timeout=5).stdout
            m = re.search(r"v=(\S+)", version)
            redis_v = m.group(1) if m else "?"
        except (OSError, subprocess.SubprocessError):
            pass
    git = "?"
    try:
        head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              timeout=5).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=5).stdout.strip()
        git = head + (" + uncommitted changes" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        pass
    return {
        "cpu_model": model, "nproc": nproc, "cpu_count": os.cpu_count(), "mem_total_gb": round(mem_kb / 1024 ** 2, 1),
        "kernel": platform.release(), "python": platform.python_version(),
        "atheris": _version("atheris"), "celery": _version("celery"), "kombu": _version("kombu"),
        "redis_py": _version("redis"), "greenlet": _version("greenlet"), "redis_server": redis_v,
        "fuzzfarm_commit": git, "loadavg_start": [round(x, 2) for x in os.getloadavg()],
    }


# ---- numbers --------------------------------------------------------------------------------
def med_max(items: list[tuple[float, bool]]) -> tuple[float, bool, float, bool]:
    """(median, median censored, max, max censored) of per-seed ``(value, censored)`` results;
    censored = not found within the budget, ``value`` then being what was spent (a lower bound,
    ordered after every found value). A censored figure prints as ``> x``."""
    if not items:
        return math.nan, False, math.nan, False
    found = sorted(v for v, c in items if not c)
    cens = sorted(v for v, c in items if c)
    vals = [(v, False) for v in found] + [(v, True) for v in cens]
    n = len(vals)
    lo, hi = vals[(n - 1) // 2], vals[n // 2]
    med, med_c = (lo[0] + hi[0]) / 2, lo[1] or hi[1]
    if cens:
        return med, med_c, max(cens[-1], found[-1] if found else 0), True
    return med, med_c, found[-1], False


def fmt_num(x: float | int | None, digits: int = 3) -> str:
    """Human-friendly number: 1234567 -> 1.23M, 0.0123 -> 0.0123."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if isinstance(x, float) and math.isinf(x):
        return "inf"
    ax = abs(x)
    if ax >= 1e6:
        return f"{x / 1e6:.{digits - 1}f}M"
    if ax >= 1e4:
        return f"{x / 1e3:.{max(0, digits - 2)}f}k"
    if isinstance(x, int) or float(x).is_integer() and ax >= 100:
        return f"{int(round(x)):,}"
    if ax >= 100:
        return f"{x:,.0f}"
    if ax >= 1:
        return f"{x:.{digits - 1}g}" if ax < 10 else f"{x:.1f}"
    if ax == 0:
        return "0"
    return f"{x:.{digits}g}"


def fmt_censored(value: float, censored: bool, unit: str = "") -> str:
    """``value`` with its unit, ``> value`` when it is a lower bound (not found in budget)."""
    return f"{'> ' if censored else ''}{fmt_num(value)}{unit}"


def ratio_text(num: float | None, num_cens: bool, den: float | None, den_cens: bool) -> str:
    """num / den where a censored value is a lower bound (> value)."""
    if num is None or den is None or den == 0 or (isinstance(num, float) and math.isnan(num)):
        return "-"
    if num_cens and den_cens:
        return "both not found"
    r = fmt_num(num / den)
    if num_cens:
        return f"> {r}"
    if den_cens:
        return f"< {r}"
    return r


# ---- output ---------------------------------------------------------------------------------
def md_escape(s: str) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")


def md_table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(md_escape(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def section(name: str, title: str, prof: Profile, settings: dict, rows: list, data: dict,
            notes: list[str], t0: float) -> dict:
    return {"section": name, "title": title, "quick": prof.quick, "profile": prof.name, "settings": settings,
            "rows": [[str(c) for c in r] for r in rows], "data": data, "notes": notes,
            "wall_s": round(time.monotonic() - t0, 1)}


def table(sections: list[dict], title: str):
    from rich.table import Table
    t = Table(title=title, show_lines=False)
    for c in ("benchmark", "case", "figure", "value"):
        t.add_column(c, overflow="fold")
    for i, s in enumerate(sections):
        if i:
            t.add_section()
        label = s["section"] + (" (quick)" if s.get("quick") else "")
        for j, (case, fig, val) in enumerate(s["rows"]):
            t.add_row(label if j == 0 else "", case, fig, val)
        if not s["rows"]:
            t.add_row(label, "-", "(nothing measured)", "; ".join(s.get("notes", [])[:1]))
    return t


def print_sections(sections: list[dict], *, as_json: bool, title: str, extra: dict | None = None) -> None:
    if as_json:
        rows = [[s["section"], *r] for s in sections for r in s["rows"]]
        sys.stdout.write(json.dumps({**(extra or {}), "sections": sections, "table": rows}, indent=2,
                                    default=str) + "\n")
        return
    from rich.console import Console
    con = Console(highlight=False, width=max(120, shutil.get_terminal_size((160, 40)).columns))
    con.print(table(sections, title))
    for s in sections:
        for n in s.get("notes", []):
            con.print(f"[dim]{s['section']}: {n}[/dim]", markup=True, highlight=False)


def arg_parser(prog: str, doc: str) -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog=prog, description=doc.strip().splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="Small budgets (CI; a few minutes), labelled quick.")
    ap.add_argument("--json", action="store_true", help="JSON instead of the table.")
    ap.add_argument("--harness", action="append", help="Only this harness (repeatable).")
    return ap


def exit_on_sigterm() -> None:
    """SIGTERM unwinds like Ctrl-C, so every farm and child this process started is stopped by
    its ``finally`` (farm workers run in their own sessions and would outlive a plain kill)."""
    import signal

    def _term(signum, frame):
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, _term)


def standalone(mod_name: str, doc: str, run: Callable[..., dict], argv: list[str] | None = None) -> int:
    """``main`` of a benchmark module: parse --quick/--json/--harness, run, print."""
    exit_on_sigterm()
    ap = arg_parser(f"python -m benchmarks.{mod_name}", doc)
    a = ap.parse_args(argv)
    prof = profile(a.quick)
    res = run(prof, only=a.harness)
    print_sections([res], as_json=a.json, title=f"fuzzfarm benchmark: {mod_name}" + (" (QUICK)" if a.quick else ""),
                   extra={"machine": machine(),
                          "command": " ".join(["python", "-m", f"benchmarks.{mod_name}",
                                               *(argv if argv is not None else sys.argv[1:])])})
    return 0
