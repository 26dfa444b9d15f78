"""Start-up: what a fuzz child process costs before it fuzzes, per process kind and harness.

    python -m benchmarks.startup [--quick] [--json] [--harness NAME]

Process kinds, each started exactly as a farm job starts it (``fuzzfarm.harness.child``
environment, a fresh interpreter each time):

* ``python``: ``python -c pass``, the interpreter's own floor;
* ``walk``: ``python -m fuzzfarm.engine.walk HARNESS fixed --strategy=random --runs=1``, the
  ``random``/``pct`` job child, which loads the harness and runs its first schedule before it stops
  (exactly one run, as ``-runs=1`` is for the atheris child; a time budget instead would count one
  run or two, as the first happened to fit in it);
* ``atheris``: ``python harnesses/X.py -runs=1 EMPTY_CORPUS``, the ``bytes`` job child, which
  imports the runtime and the ports instrumented, starts libFuzzer and runs the empty input; as
  ``atheris (first start)`` with an empty instrumented-code cache (the first job start on a
  machine patches every module, fuzzfarm/instrument.py), as ``atheris`` with the cache filled.

Each figure is the median over the runs (seven, three with ``--quick``), run one after another in
this one process, so they compare as ratios: the wall time from spawn to exit (the interpreter's
exit included, a few ms) and the CPU time the child used (user + system; on a shared machine the
steadier of the two, since wall time also counts waiting for a core). Then one ``-X importtime`` run per kind gives the
breakdown: the top-level imports (their cumulative times partition the whole import time) and a
few nested modules of interest, with whether each was instrumented. The same run checks that no
Celery, kombu, Redis, Rich or Typer module is imported by a fuzz child.
"""

from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from benchmarks import common as C

# Nested modules whose cumulative import time is reported on its own (when imported at all).
WATCH = ("importlib.metadata", "fuzzfarm.harness", "fuzzfarm.collector", "heapq", "sysconfig",
         "_sysconfigdata__linux_x86_64-linux-gnu", "greenlet", "ctypes", "logging", "subprocess")
# Nothing of the farm's machinery belongs in a fuzz child.
FORBIDDEN = ("celery", "kombu", "redis", "rich", "typer", "click", "billiard", "amqp")
_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


def _variant(spec: C.HarnessSpec) -> str:
    return "fixed" if "fixed" in spec.variants else spec.variants[0]


def commands(spec: C.HarnessSpec, work: str) -> dict[str, list[str]]:
    art = os.path.join(work, "artifacts")
    corpus = os.path.join(work, "corpus")
    os.makedirs(art, exist_ok=True)
    os.makedirs(corpus, exist_ok=True)
    return {
        # --module as the farm passes it (fuzzfarm/harness/target.py): no entry-point scan in the child
        "walk": [C.PY, "-m", "fuzzfarm.engine.walk", spec.name, _variant(spec), "--strategy=random", "--seed=1",
                 "--runs=1", "--max-time=60", f"--artifacts={art}", f"--module={spec.module}"],
        # the atheris child twice: the first start on a machine (an empty instrumented-code cache,
        # fuzzfarm/instrument.py) and every later one (the cache filled by the first)
        "atheris (first start)": [C.PY, spec.path, "-runs=1", "-seed=1", f"-artifact_prefix={art}/", corpus],
        "atheris": [C.PY, spec.path, "-runs=1", "-seed=1", f"-artifact_prefix={art}/", corpus],
    }


def _code_cache(kind: str, work: str, i: int) -> dict:
    """The instrumented-code cache a spawn of ``kind`` sees: a fresh, empty one for each first
    start; one shared directory, filled by a start before the timed ones, for the others."""
    if kind == "atheris (first start)":
        return {"FUZZFARM_CODE_CACHE": os.path.join(work, f"code-cache-cold-{i}")}
    return {"FUZZFARM_CODE_CACHE": os.path.join(work, "code-cache")}


def _spawn(argv: list[str], env: dict, cwd: str) -> tuple[float, float]:
    """(wall seconds from spawn to exit, CPU seconds the child used: user + system). On a shared
    machine the CPU figure is the steadier one: wall time also counts waiting for a core."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    dt = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[:4])} ... exited {proc.returncode}")
    return dt, usage.ru_utime + usage.ru_stime


def importtime(argv: list[str], env: dict, cwd: str) -> dict:
    """One ``-X importtime`` run: top-level imports by cumulative ms, the watched nested ones,
    the instrumented modules and any forbidden module imported."""
    proc = subprocess.run([argv[0], "-X", "importtime", *argv[1:]], env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, timeout=300)
    err = proc.stderr.decode(errors="replace").splitlines()
    top: dict[str, float] = {}
    watched: dict[str, float] = {}
    names = []
    for line in err:
        m = _LINE.match(line)
        if not m:
            continue
        cum_ms, depth, name = int(m.group(2)) / 1000, len(m.group(3)) // 2, m.group(4)
        names.append(name)
        if depth == 0:
            top[name] = top.get(name, 0.0) + cum_ms
        if name in WATCH and name not in watched:
            watched[name] = cum_ms
    instrumented = [ln.split("INFO: Instrumenting ", 1)[1].strip() for ln in err if "INFO: Instrumenting " in ln]
    forbidden = sorted({n for n in names if n.split(".")[0] in FORBIDDEN})
    return {"total_import_ms": round(sum(top.values()), 1),
            "top": {k: round(v, 1) for k, v in sorted(top.items(), key=lambda kv: -kv[1])},
            "watched": {k: round(v, 1) for k, v in watched.items()},
            "instrumented": instrumented, "forbidden": forbidden}


def measure(prof: C.Profile, only=None, log=None) -> dict:
    runs = 3 if prof.quick else 7
    specs, notes = C.harnesses(only)
    work = tempfile.mkdtemp(prefix="fuzzfarm-startup-")
    out: dict = {"runs": runs, "harnesses": {}, "notes": notes, "loadavg_start": [round(x, 2) for x in os.getloadavg()]}
    try:
        env0 = C.child_env()
        py = [_spawn([C.PY, "-c", "pass"], env0, work) for _ in range(runs)]
        out["python"] = {"median_s": round(statistics.median(w for w, _ in py), 4),
                         "cpu_median_s": round(statistics.median(c for _, c in py), 4)}
        for spec in specs:
            env = C.child_env({"FUZZFARM_VARIANT": _variant(spec)})
            per: dict = {}
            for kind, argv in commands(spec, os.path.join(work, spec.name)).items():
                if log:
                    log(f"startup: {spec.name} {kind} x{runs}")
                if kind == "atheris":
                    _spawn(argv, {**env, **_code_cache(kind, work, -1)}, work)  # fills the cache (untimed)
                got = [_spawn(argv, {**env, **_code_cache(kind, work, i)}, work) for i in range(runs)]
                walls, cpus = [w for w, _ in got], [c for _, c in got]
                per[kind] = {"median_s": round(statistics.median(walls), 4), "min_s": round(min(walls), 4),
                             "max_s": round(max(walls), 4), "cpu_median_s": round(statistics.median(cpus), 4),
                             "imports": importtime(argv, {**env, **_code_cache(kind, work, runs)}, work)}
            out["harnesses"][spec.name] = per
    finally:
        shutil.rmtree(work, ignore_errors=True)
    out["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    return out


def rows(data: dict) -> list[list[str]]:
    out = [["python -c pass", "launch to exit, median: wall / CPU",
            f"{C.fmt_num(data['python']['median_s'])} s / {C.fmt_num(data['python']['cpu_median_s'])} s"]]
    for name, per in data["harnesses"].items():
        for kind, r in per.items():
            case = f"{name} {kind}"
            out.append([case, f"launch to exit, median of {data['runs']}: wall (min / max) / CPU",
                        f"{C.fmt_num(r['median_s'])} s ({C.fmt_num(r['min_s'])} / {C.fmt_num(r['max_s'])}) / "
                        f"{C.fmt_num(r['cpu_median_s'])} s"])
            imp = r["imports"]
            top = ", ".join(f"{k} {C.fmt_num(v)}" for k, v in list(imp["top"].items())[:6])
            out.append([case, "-X importtime: total; largest top-level imports (ms, cumulative)",
                        f"{C.fmt_num(imp['total_import_ms'])} ms; {top}"])
            if imp["watched"]:
                out.append([case, "nested imports of interest (ms, cumulative)",
                            ", ".join(f"{k} {C.fmt_num(v)}" for k, v in imp["watched"].items())])
            stdlib = [m for m in imp["instrumented"] if not m.startswith(("fuzzfarm", "harnesses"))]
            out.append([case, "modules instrumented (fuzzfarm's / others)",
                        f"{len(imp['instrumented']) - len(stdlib)} / {', '.join(stdlib) or 'none'}"])
            out.append([case, "Celery/kombu/Redis/Rich/Typer modules imported", ", ".join(imp["forbidden"]) or "none"])
    return out


def run(prof: C.Profile, only=None, log=None) -> dict:
    t0 = time.monotonic()
    data = measure(prof, only, log)
    notes = list(data["notes"]) + [
        "wall and CPU (user + system) time from spawn to exit of a fresh process, exit included; the walk runs "
        "its first schedule (one run), "
        "the atheris child the empty input; -X importtime figures come from one separate run per kind and "
        "include the importer's own overhead",
        f"load average at start → end: {data['loadavg_start']} → {data['loadavg_end']} (2 shared cores: compare "
        "the kinds with each other, not with other runs)"]
    settings = {"runs": data["runs"], "variant": "fixed (or the first declared)"}
    return C.section("startup", "Start-up of a fuzz child", prof, settings, rows(data), data, notes, t0)


if __name__ == "__main__":
    raise SystemExit(C.standalone("startup", __doc__, run))
