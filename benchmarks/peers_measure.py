"""Measure the Python peer on the toy races and record its figures in ``benchmarks/peers.json``.

    python -m benchmarks.peers_measure [--json] [--seconds S] [--bug-seconds S] [--out PATH] [--compare]

The peer is **interleave-test 0.1.0** (PyPI; "deterministic thread-interleaving fuzzer: loom-style
concurrency testing"), the best of the Python peers on these races. It needs Python >= 3.12
(``sys.monitoring``) and fuzzfarm's venv is 3.11, so this command installs nothing: it uses the
peer where ``interleave_test`` imports (this interpreter, else ``$FUZZFARM_PEER_PYTHON``, else
``.venv-peers/bin/python``) and otherwise says, in one line with exit 2, how to install it::

    python3.12 -m venv .venv-peers && .venv-peers/bin/pip install interleave-test==0.1.0

What it runs (``benchmarks/peers_interleave.py``, on the toy races of ``benchmarks/peer_toys.py``):
each of the peer's strategies (random; pct at depths 2, 3, 5, as fuzzfarm's pct:2/3/5; dfs with
its default bound of 2 preemptions) at both of its granularities (opcode, its default, and line)
for a fixed wall budget on each toy's fixed form: runs/s and distinct schedules/s; and on the
buggy form, seconds and runs to the first bug for seeds 1-3. ``peers.json`` holds, per toy, the
best peer configuration by distinct schedules/s (the figure ``benchmarks/portfolio.py`` divides
by), every configuration measured, and how, when and under what machine load it was measured.
``--compare`` also measures fuzzfarm's walk the way portfolio.py does (same seconds, same
session) and prints the ratio.

Fairness (read before quoting a ratio):

* same toy logic: the toys are the same statements in each tool's API (Go map write check
  included; see ``benchmarks/peer_toys.py``), fixed forms for the rates, buggy for first bug;
* same machine, run one after the other in one session (``--compare``); the load average before
  and after is recorded, the box is shared, so compare figures of one session only;
* start-up excluded on both sides: the peer's clock starts at its ``explore`` call (interpreter
  start-up and ``import interleave_test`` excluded, measured apart as ``startup_s``), fuzzfarm's
  walk counts ``distinct`` over its own ``--max-time`` (its process start-up excluded too);
* distinct is each tool's own notion: for the peer, its decision sequence at opcode or line
  granularity (hundreds of decisions per run), for fuzzfarm, its decisions at Go preemption
  points. The peer's finer schedules are easier to make distinct (two of them may order the toy's
  operations identically), so the count favours the peer, and the recorded figure is the peer's
  best configuration, chosen after the fact: the ratio is a lower bound on fuzzfarm's edge;
* different interpreters (peer on 3.12, fuzzfarm on 3.11): the peer cannot run on 3.11.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "benchmarks", "peers.json")
PEER, PEER_VERSION = "interleave-test", "0.1.0"
INSTALL = ("<a Python >= 3.12, e.g. python3.12> -m venv .venv-peers && .venv-peers/bin/pip install interleave-test==0.1.0 "
           "(or set FUZZFARM_PEER_PYTHON to a Python >= 3.12 that has it)")
TOYS = ("late_cancel", "shared_map")
# the fields benchmarks/portfolio.py reads, and the ones a reader of a recorded figure needs
FIELDS = ("peer", "version", "strategy", "granularity", "runs_per_s", "distinct_per_s", "distinct_share",
          "first_bug_s", "how_measured", "date", "machine_load")


def _peer_python() -> str | None:
    """An interpreter where interleave_test (the recorded version) imports, or None."""
    cands = [sys.executable, os.environ.get("FUZZFARM_PEER_PYTHON"), os.path.join(ROOT, ".venv-peers", "bin", "python")]
    for py in cands:
        if not py or not os.path.exists(py):
            continue
        r = subprocess.run([py, "-c", "import interleave_test as it; print(it.__version__)"], capture_output=True,
                           text=True, timeout=60)
        if r.returncode == 0 and r.stdout.strip() == PEER_VERSION:
            return py
    return None


def _startup_s(py: str, n: int = 3) -> float:
    """Median seconds for the peer's interpreter to start and import the peer (what the rates exclude)."""
    ts = []
    for _ in range(n):
        t0 = time.monotonic()
        subprocess.run([py, "-c", "import interleave_test"], check=True, capture_output=True, timeout=60)
        ts.append(time.monotonic() - t0)
    return round(statistics.median(ts), 3)


def _load() -> dict:
    return {"loadavg": [round(x, 2) for x in os.getloadavg()], "cpus": os.cpu_count()}


def _first_bug_median(rows: list[dict]) -> tuple[float | None, int]:
    found = [r["seconds"] for r in rows if r["found"]]
    return (round(statistics.median(found), 4) if len(found) * 2 > len(rows) else None), len(found)


def record(raw: dict, *, seconds: float, bug_seconds: float, startup: float, load_before: dict,
           load_after: dict, date: str) -> dict:
    """peers.json's content from the peer run's raw figures."""
    how = (f"interleave-test explore() on benchmarks/peer_toys.py (fixed form), {seconds:g} s wall per strategy x "
           f"granularity, clock from the explore() call (interpreter start-up + import excluded: startup_s); "
           f"distinct = runs with a (scenario, decision sequence) not run before, the sequence read through the "
           f"peer's strategy hooks (pick + observe = its Scheduler._decisions); first_bug_s: median seconds from "
           f"explore() to the toy's bug on the buggy form, seeds 1-3, {bug_seconds:g} s budget each (null: found in "
           f"half or fewer); best configuration by distinct_per_s, chosen after the fact")
    out: dict = {"_about": {"peer": PEER, "version": raw["version"], "python": raw["python"], "date": date,
                            "startup_s": startup, "machine_load": {"before": load_before, "after": load_after},
                            "how_measured": how, "command": "python -m benchmarks.peers_measure",
                            "toy_logic": "benchmarks/peer_toys.py (same statements as benchmarks/toys/*)"}}
    bugs = {(b["toy"], b["strategy"], b["granularity"]): b["per_seed"] for b in raw["first_bug"]}
    for toy in TOYS:
        configs = []
        for d in (x for x in raw["distinct"] if x["toy"] == toy):
            fb, nfound = _first_bug_median(bugs[(toy, d["strategy"], d["granularity"])])
            configs.append({**{k: d[k] for k in ("strategy", "granularity", "seconds", "cpu_s", "runs", "distinct",
                                                 "runs_per_s", "distinct_per_s", "distinct_share", "exhausted")},
                            "first_bug_s": fb, "first_bug_found": f"{nfound}/{len(bugs[(toy, d['strategy'], d['granularity'])])}"})
        best = max(configs, key=lambda c: c["distinct_per_s"])
        quickest = min((c for c in configs if c["first_bug_s"] is not None), key=lambda c: c["first_bug_s"],
                       default=None)
        out[toy] = {"peer": f"{PEER} {raw['version']} {best['strategy']} ({best['granularity']})", "version": raw["version"],
                    "strategy": best["strategy"], "granularity": best["granularity"],
                    "runs_per_s": best["runs_per_s"], "distinct_per_s": best["distinct_per_s"],
                    "distinct_share": best["distinct_share"], "first_bug_s": best["first_bug_s"],
                    "how_measured": how, "date": date, "machine_load": {"before": load_before, "after": load_after},
                    "startup_s": startup,
                    "quickest_first_bug": quickest and {k: quickest[k] for k in ("strategy", "granularity",
                                                                                 "first_bug_s", "first_bug_found")},
                    "configs": configs}
    return out


def _peer_rate(py: str, toy: str, strategy: str, granularity: str, seconds: float) -> dict:
    r = subprocess.run([py, "-m", "benchmarks.peers_interleave", f"--seconds={seconds}", "--only", toy, strategy,
                        granularity], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, check=True)
    return json.loads(r.stdout.strip().splitlines()[-1])


def _fuzzfarm_rate(toy: str, strategy: str, seconds: float) -> dict:
    """fuzzfarm's walk loop (``fuzzfarm.engine.walk.walk``, what portfolio.py's walk process runs,
    distinct-schedule tree on) in this process on the toy's fixed form: wall and CPU seconds of
    the loop only (start-up excluded, as on the peer's side)."""
    import importlib
    import tempfile

    from benchmarks.portfolio import ENGINE_NAME
    from fuzzfarm.engine.walk import walk

    mod = importlib.import_module(f"benchmarks.toys.{toy}")
    last: dict = {}
    with tempfile.TemporaryDirectory(prefix="fuzzfarm-peers-") as wd:
        t0, c0 = time.monotonic(), time.process_time()
        walk(mod, "fixed", ENGINE_NAME.get(strategy, strategy), seed=1, restart=0, max_time=seconds, out_dir=wd,
             timeout_s=10, per_signature=1, emit=last.update)
        wall, cpu = time.monotonic() - t0, time.process_time() - c0
    return {"distinct": last.get("distinct", 0), "execs": last.get("execs", 0), "wall_s": round(wall, 3),
            "cpu_s": round(cpu, 3), "distinct_per_s": round(last.get("distinct", 0) / wall, 1),
            "distinct_per_cpu_s": round(last.get("distinct", 0) / max(cpu, 1e-9), 1)}


def compare(py: str, peers: dict, seconds: float, rounds: int = 3) -> dict:
    """fuzzfarm's walk against the peer's recorded best configuration, interleaved round by round
    (peer, mix, random, peer, ...) so a change of machine load hits both sides. Two ratios per
    round: distinct schedules per wall second, and per CPU second of the measuring process (the
    box is shared: CFS favours the peer's thread hand-offs, which sleep and wake, over fuzzfarm's
    one always-runnable loop, so under load the wall ratio understates fuzzfarm; per CPU second
    does not depend on the share each got). Medians over rounds. Needs fuzzfarm's venv."""
    out = {}
    for toy in TOYS:
        best = peers[toy]
        per = []
        for _ in range(rounds):
            p = _peer_rate(py, toy, best["strategy"], best["granularity"], seconds)
            p_cpu = p["distinct"] / max(p["cpu_s"], 1e-9)
            row = {"peer_distinct_per_s": p["distinct_per_s"], "peer_distinct_per_cpu_s": round(p_cpu, 1),
                   "loadavg_1m": round(os.getloadavg()[0], 2)}
            for strategy in ("mix", "random"):
                d = _fuzzfarm_rate(toy, strategy, seconds)
                row[strategy] = d
                row[f"{strategy}_over_peer"] = round(d["distinct_per_s"] / max(p["distinct_per_s"], 1e-9), 2)
                row[f"{strategy}_over_peer_cpu"] = round(d["distinct_per_cpu_s"] / max(p_cpu, 1e-9), 2)
            per.append(row)
        out[toy] = {"peer": best["peer"], "seconds": seconds, "rounds": per,
                    **{f"median_{s}_over_peer{k}": statistics.median(r[f"{s}_over_peer{k}"] for r in per)
                       for s in ("mix", "random") for k in ("", "_cpu")}}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.peers_measure", description=__doc__.split("\n")[0])
    ap.add_argument("--json", action="store_true", help="print the recorded figures as JSON")
    ap.add_argument("--seconds", type=float, default=5.0, help="wall budget per toy x strategy x granularity")
    ap.add_argument("--bug-seconds", type=float, default=5.0, help="budget per first-bug run (3 seeds)")
    ap.add_argument("--out", default=OUT, help="where to write (default benchmarks/peers.json)")
    ap.add_argument("--compare", action="store_true",
                    help="also measure fuzzfarm's distinct schedules/s now, interleaved with the peer's best (recorded)")
    ap.add_argument("--compare-seconds", type=float, default=2.0, help="budget per side per --compare round")
    a = ap.parse_args(argv)
    py = _peer_python()
    if py is None:
        print(f"peers: {PEER} {PEER_VERSION} is not importable here (Python {sys.version.split()[0]}; it needs >= 3.12)"
              f" nor in $FUZZFARM_PEER_PYTHON or .venv-peers; install it: {INSTALL}", file=sys.stderr)
        return 2
    startup = _startup_s(py)
    before = _load()
    r = subprocess.run([py, "-m", "benchmarks.peers_interleave", f"--seconds={a.seconds}",
                        f"--bug-seconds={a.bug_seconds}"], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    if r.returncode != 0:
        print(f"peers: the peer run failed (exit {r.returncode}); see its stderr above; nothing written", file=sys.stderr)
        return 1
    raw = json.loads(r.stdout.strip().splitlines()[-1])
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    data = record(raw, seconds=a.seconds, bug_seconds=a.bug_seconds, startup=startup, load_before=before,
                  load_after=_load(), date=date)
    if a.compare:
        data["_about"]["same_session"] = compare(py, data, a.compare_seconds)
    tmp = a.out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    os.replace(tmp, a.out)
    if a.json:
        print(json.dumps(data, indent=1))
        return 0
    print(f"peers: {PEER} {raw['version']} on Python {raw['python']}, start-up + import {startup} s (excluded), "
          f"written to {os.path.relpath(a.out, ROOT)}")
    for toy in TOYS:
        for c in data[toy]["configs"]:
            print(f"  {toy:12s} {c['strategy']:7s} {c['granularity']:6s} runs/s {c['runs_per_s']:8.1f}  distinct/s "
                  f"{c['distinct_per_s']:8.1f} ({100 * c['distinct_share']:.0f}%)  first bug "
                  f"{'-' if c['first_bug_s'] is None else c['first_bug_s']} s ({c['first_bug_found']})")
        print(f"  {toy}: best peer {data[toy]['peer']} {data[toy]['distinct_per_s']} distinct/s")
    for toy, c in data["_about"].get("same_session", {}).items():
        for r in c["rounds"]:
            print(f"  same session {toy:12s} peer {r['peer_distinct_per_s']:6.1f}/s {r['peer_distinct_per_cpu_s']:6.1f}/cpu-s;"
                  f" mix {r['mix']['distinct_per_s']:7.1f}/s {r['mix']['distinct_per_cpu_s']:7.1f}/cpu-s;"
                  f" random {r['random']['distinct_per_s']:7.1f}/s {r['random']['distinct_per_cpu_s']:7.1f}/cpu-s;"
                  f" load {r['loadavg_1m']}")
        print(f"  same session {toy}: fuzzfarm ÷ {c['peer']}, distinct schedules, median of {len(c['rounds'])} "
              f"interleaved rounds: per wall s mix {c['median_mix_over_peer']}x random {c['median_random_over_peer']}x; "
              f"per CPU s mix {c['median_mix_over_peer_cpu']}x random {c['median_random_over_peer_cpu']}x (goal >= 20x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
