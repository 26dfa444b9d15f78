"""Shared by tests/goport/test_twins.py and `python -m tests.goport.twin_table` (which prints the
per-twin table of docs/PORT.md; with `--runs CAP` also each generated port's runs to the first
failure): `fuzzfarm port --test TestScenario` on every shipped Go twin."""

from __future__ import annotations

import functools
import os
import re
import sys

from fuzzfarm.goport import package, translate

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TWINS_DIR = os.path.join(ROOT, "gotwins")
TWINS = ["checker", "clusterbuilder"] + [f"examples/{d}" for d in sorted(os.listdir(os.path.join(TWINS_DIR, "examples")))]
_SITE = re.compile(r"^[^:]+:\d+: ")
# `fuzzfarm port --max-starvation` per twin: a twin whose clock is scaled carries the realism
# bound (0.1 s) scaled with it (docs/PORT.md). The checker counts upstream's seconds in
# milliseconds (gotwins/checker/doc.go: unit = time.Millisecond): 0.1 ms.
# hc11 and hc12 likewise: their test's leak check waits 10 ms where upstream's waits 10 s (hc11's
# poll interval is 1 ms for upstream's 1 s). Under 0.1 s hc11's fixed twin failed that check in 5
# of 200 random runs (the poller, cancelled, kept runnable through the 10 ms grace), while `go
# test` on it passed 3,000 runs, and 2,000 with -race -cpu 1, on a loaded machine (load 7 on 2 cores).
BOUND = {"checker": 0.0001, "examples/hc11": 0.0001, "examples/hc12": 0.0001}
# gosim.run keywords per twin, as its hand harness runs: clusterbuilder's hand harness keeps the
# race detector off (prow's report is the production crash, `fatal error: concurrent map writes`,
# not a -race report; harnesses/cluster_builder_race.py RACE), so its generated port is compared
# the same way (with the detector on, as `go test -race`, every run ends as the data race on
# DefaultNamespaces first: 100 of 100 random runs)
RUN_KW = {"clusterbuilder": {"race": False}}


def constructs(lines: list[str]) -> list[str]:
    """The refusal lines without their file.go:line and the advice: what was refused, sorted, once each."""
    return sorted({_SITE.sub("", ln).split(": not supported;")[0].split(": fix the Go")[0] for ln in lines})


def go_lines(twin: str) -> int:
    d = os.path.join(TWINS_DIR, twin)
    n = 0
    for root, _, files in os.walk(d):
        for f in files:
            if f.endswith(".go"):
                n += sum(1 for ln in open(os.path.join(root, f)) if ln.strip() and not ln.strip().startswith("//"))
    return n


@functools.lru_cache(maxsize=None)
def goast_binary(tmpdir: str) -> str:
    from fuzzfarm.gotool import run_go
    out = os.path.join(tmpdir, "goast")
    p = run_go(["build", "-o", out, translate.GOAST], cwd=os.path.dirname(translate.GOAST))
    assert p.returncode == 0, p.stderr
    return out


def prefetch(binary: str, twins=TWINS) -> dict:
    """goast's output for each of ``twins`` and build, two at a time (the machine's cores): the
    table reads each once. (twin, tags) -> the parsed package, or the PortError."""
    from concurrent.futures import ThreadPoolExecutor

    def one(key):
        twin, tags = key
        try:
            return key, translate.read_go([os.path.join(TWINS_DIR, twin)], tags, goast_binary=binary)
        except translate.PortError as e:
            return key, e
    with ThreadPoolExecutor(2) as pool:
        return dict(pool.map(one, [(t, tags) for t in twins for tags in ((), ("fixed",))]))


def port_twin(twin: str, out: str, binary: str, cache: dict | None = None):
    """(files written, None) or (None, refusal lines)."""
    real = package.read_go

    def read(paths, tags=()):
        hit = (cache or {}).get((twin, tuple(tags)))
        if hit is None:
            return real(paths, tags, goast_binary=binary)
        if isinstance(hit, Exception):
            raise hit
        return hit
    package.read_go = read
    try:
        return package.port([os.path.join(TWINS_DIR, twin)], out, name=twin.replace("/", "-"), test="TestScenario",
                            max_starvation=BOUND.get(twin, package.NOT_GIVEN)), None
    except translate.PortError as e:
        return None, e.lines
    finally:
        package.read_go = real


def py_lines(files) -> int:
    return sum(sum(1 for ln in open(f) if ln.strip()) for f in files if f.endswith(".py"))


def runs_to_first_failure(out: str, twin: str, strategy: str, cap: int) -> tuple[int | None, set]:
    """docs/PORT.md's figure for a generated port: the worst over seeds s = 1..10 of the runs to
    its first failure, each seed a run of strategy seeds 100000·s, 100000·s+1, ... (None: some
    seed found nothing in ``cap`` runs), with the kinds seen. Buggy build, ``go test``'s leak
    rule, and the twin's bound (BOUND) or none and RUN_KW, as test_twins runs them."""
    from fuzzfarm import gosim
    from fuzzfarm.goport import rt
    from fuzzfarm.strategies import make
    from tests.goport.test_port import load
    mod = load(out, "buggy")
    worst, kinds = 0, set()
    for s in range(1, 11):
        for i in range(cap):
            f = gosim.run(rt.test_main(mod.TestScenario, "TestScenario"), strategy=make(strategy, seed=100000 * s + i),
                          check_leaks=False, max_starvation_s=BOUND.get(twin), **RUN_KW.get(twin, {})).failure
            if f is not None:
                worst, kinds = max(worst, i + 1), kinds | {f.kind}
                break
        else:
            return None, kinds
    return worst, kinds


if __name__ == "__main__":
    import tempfile
    runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 0  # --runs CAP: also the figures
    tmp = tempfile.mkdtemp()
    b = goast_binary(tmp)
    for t in TWINS:
        files, refused = port_twin(t, os.path.join(tmp, t.replace("/", "-")), b)
        if runs and files:
            for strat in ("random", "pct"):
                n, kinds = runs_to_first_failure(os.path.join(tmp, t.replace("/", "-")), t, strat, runs)
                print(f"{t} {strat}: {n if n else f'>{runs}'} ({', '.join(sorted(kinds))})")
        print(f"| {t} | {go_lines(t)} | {py_lines(files) if files else '-'} | "
              + (("yes" + "".join(f" (stub to fill in: {os.path.basename(f)})" for f in sorted(files) if os.path.basename(f).startswith("stub_")))
                 if files else "refused: " + "; ".join(constructs(refused))) + " |")
    sys.exit(0)
