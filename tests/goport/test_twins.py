"""`fuzzfarm port gotwins/<twin> --test TestScenario` on every shipped Go twin (gotwins/TWINS.toml),
with the result each one must have, so a regression and a silent change both go red:

* refused twins: exactly the constructs listed (file:line and advice dropped). A construct the
  translator learns changes the list: update it here and in docs/PORT.md's table;
* translated twins: the generated harness finds the hand port's bug on buggy (the same failure
  kind, one the hand port's case lists in KINDS, and the same Go crash state as the hand port
  gives for that kind) within the hand port's budget (tests/gosim/test_examples.py `bound`,
  random strategy), and stays clean on fixed for the runs below.

goast runs once per twin and build, two at a time, with goast.go built once (twin_table.prefetch).
"""

from __future__ import annotations

import re
import sys

import pytest

from fuzzfarm import examples, gosim
from fuzzfarm.goport import rt
from fuzzfarm.strategies import RandomStrategy

from tests.go_fixtures import go  # noqa: F401 - the fixture
from tests.goport import twin_table as T
from tests.goport.test_port import load

FIXED_RUNS = 200  # the hand ports' default tier runs 500 per case (test_examples); slow: 500

# twin -> None (translates) or the constructs it is refused for (portlang's work: see docs/PORT.md)
EXPECTED = {
    'checker': None,
    'clusterbuilder': None,
    'examples/dr01': None,
    'examples/dr02': None,
    'examples/dr03': None,
    'examples/hc01': None,
    'examples/hc03': None,
    'examples/hc04': None,
    'examples/hc06': None,
    'examples/hc08': None,
    'examples/hc09': None,
    'examples/hc10': None,
    'examples/hc11': None,
    'examples/hc12': None,
    'examples/hc15': None,
    'examples/hc16': None,
    'examples/hc17': None,
    'examples/hc18': None,
    'examples/hc19': None,
    'examples/hc20': None,
}

# the hand port each translated twin is compared with (gotwins/TWINS.toml)
HAND = {"examples/hc01": "hc01", "examples/hc09": "hc09", "examples/dr02": "dr02", "examples/dr01": "dr01", "examples/hc10": "hc10", "examples/hc15": "hc15", "examples/hc16": "hc16",
        "examples/dr03": "dr03", "examples/hc06": "hc06",
        "examples/hc04": "hc04", "examples/hc19": "hc19",
        "examples/hc08": "hc08", "examples/hc17": "hc17", "examples/hc20": "hc20",
        # hc03: the lock cycle's members ordered by their Go names (gosim.waitfor), as both ports name them
        "examples/hc03": "hc03",
        # hc11, hc12: compared through LEAK_CHECK (below)
        "examples/hc11": "hc11", "examples/hc12": "hc12",
        # hc18: with the net and io models (gonet)
        "examples/hc18": "hc18"}

# twins whose Go test checks for leaked goroutines itself (runtime.NumGoroutine after a grace,
# a goroutine dump to stderr, then t.Fatalf), as goleak would: `go test` reports the leak as that
# check's FAIL, with the leaked goroutines in the dump (tests/goport/test_leakcheck_twins.py reads
# Go's). Their hand ports end as gosim's `goroutine leak`, whose crash state is the leaked
# goroutine. One bug by two routes, compared as such: the generated port must fail at the test's
# check (this frame), and the hand port's leaked goroutine must be one of the goroutines the check
# found still running (the failure's goroutine dumps other than the test's own).
LEAK_CHECK = {"examples/hc11": "checkLeaks (scenario_test.go:31)", "examples/hc12": "checkLeaks (scenario_test.go:36)"}

# translated twins whose comparison with the hand port is still open, and why (docs/PORT.md's
# table): the test checks they translate; what they find is not compared yet
OPEN: dict[str, str] = {}  # none open now (hc03, hc11, hc12 were)


# the seed twins, whose hand port is a harness of harnesses/ (not an examples case): that harness,
# and the strategy and runs the generated port gets (checker: at its bound, T.BOUND, pct finds
# the nil dereference in 3 of 300 runs, first at seed 136; random in none of 300)
SEED = {"checker": ("harnesses.checker_race", "pct", 300),
        # clusterbuilder: random finds `concurrent map writes` (or `concurrent map iteration and map
        # write`) in cache.defaultOpts <- cache.New <- cluster.New in 10 of the first 200 seeds (first
        # at seed 65), with the detector off as the hand harness runs (twin_table.RUN_KW); pct in
        # none of 1,500 runs for each of 10 seeds (docs/PORT.md)
        "clusterbuilder": ("harnesses.cluster_builder_race", "random", 300)}
HAND_SEED_RUNS = 300  # random inputs to the hand harness: its crash states of the seed bug (all three shapes)


# the hand edits a translated twin needs: its stubs filled in (twin -> {file: [(text, replacement)]});
# none since strings has a model (hc16's strings.Split was the last)
HAND_EDITS: dict[str, dict[str, list[tuple[str, str]]]] = {}


def hand_edit(twin: str, out) -> int:
    """Apply HAND_EDITS[twin] to the port in ``out``; the number of edits."""
    n = 0
    for name, edits in HAND_EDITS.get(twin, {}).items():
        f = next(out.glob(f"*_port/{name}"))
        text = f.read_text()
        for old, new in edits:
            assert old in text, (f, old)
            text = text.replace(old, new)
            n += 1
        f.write_text(text)
    return n


# a twin whose hand port's crash state is its scenario's own frame (no Go frame): the Go test's
# frame standing for it, where the generated port must fail (hc15: the test's check of two
# provisions; hc16 and hc19: the deadlocked test blocked in wg.Wait, as the hand scenario's main is)
TEST_CHECK = {"examples/hc15": "TestScenario (scenario_test.go:30)", "examples/hc16": "TestScenario (scenario_test.go:30)",
              "examples/hc19": "TestScenario (scenario_test.go:35)",  # hc19: the deadlocked test in finishedWG.Wait, as the hand main
              # hc17, hc20: refused until pointers to non-structs translate; then their deadlocked
              # test waits there, as the hand scenario's main does (checked on a trial merge)
              "examples/hc17": "TestScenario (scenario_test.go:30)", "examples/hc20": "scenario (scenario_test.go:40)",
              # hc18: the deadlocked test in wg.Wait, as the hand scenario's main (no lock cycle: the
              # writer holding writeLock waits on resetChan, a channel)
              "examples/hc18": "TestScenario (scenario_test.go:54)"}

# the default tier: the translated twins and one refused for a single construct family; the
# whole table is slow (goast reads 40 packages: ~30 s on two shared cores)
DEFAULT = {"examples/hc01", "examples/hc09", "examples/dr02", "examples/dr01", "examples/hc10", "examples/hc15",
           "examples/dr03", "examples/hc06",
           "examples/hc04", "examples/hc19", "examples/hc03", "examples/hc11", "examples/hc18"}
PARAMS = [t if t in DEFAULT else pytest.param(t, marks=pytest.mark.slow) for t in T.TWINS]


@pytest.fixture(scope="module")
def table(tmp_path_factory, go):
    tmp = tmp_path_factory.mktemp("twins")
    return tmp, T.goast_binary(str(tmp))


def test_every_shipped_twin_is_in_the_table():
    import tomllib
    listed = {v for tbl in tomllib.load(open(f"{T.TWINS_DIR}/TWINS.toml", "rb")).values() for v in tbl.values()}
    assert listed == set(T.TWINS) == set(EXPECTED), (listed ^ set(EXPECTED))
    assert set(HAND) | set(OPEN) | set(SEED) == {t for t, v in EXPECTED.items() if v is None}


def norm(frame: str, pkg: str | None = None) -> str:
    """A Go crash-state frame as a name both ports share: no site, ``(*T).M`` -> ``T.M``, the
    generated port's package dropped."""
    f = re.sub(r" \([^()]*:\d+\)$", "", frame)
    f = re.sub(r"\(\*?(\w+)\)", r"\1", f)
    # a function of a sub-package of the module (clusterbuilder's cache.defaultOpts) reads as
    # Go's traceback prints it, pkg/cache.defaultOpts: the hand port names it cache.defaultOpts
    return f.removeprefix(pkg + ".").removeprefix(pkg + "/") if pkg else f


def same_state(hand: list[str], gen: list[str], pkg: str) -> bool:
    """The hand port's declared frames (scaffolding without a Go site left out) lead the
    generated port's crash state; the hand port may name the function with its upstream package."""
    h = [norm(f) for f in hand if re.search(r"\(\S+\.go:\d+\)$", f)]
    g = [norm(f, pkg) for f in gen]
    if not h and TEST_CHECK.get(pkg.rsplit("/gotwins/", 1)[-1]):
        # the hand port's failure is its scenario's own check (no Go frame): the Go test's check
        # that stands for it must be what fails
        return bool(gen) and gen[0] == f"{pkg}.{TEST_CHECK[pkg.rsplit('/gotwins/', 1)[-1]]}"
    return bool(h) and len(g) >= len(h) and all(a == b or a.endswith("." + b) for a, b in zip(h, g))


# a hand port's scenario function (no Go frame: not_ported) whose access is one side of the race,
# and the Go test's function of the twin that stands for it (dr03: the controller logging through
# the promoted V, whose read Go reports in the caller, TestScenario: the wrapper is inlined)
TEST_FRAME = {"_scenario.main.controller": "TestScenario"}


def race_pair(f, pkg: str | None = None) -> list[str]:
    """A data race's two sites as Go functions (the bucket's identity, DataRace.crash_state, in
    Go's names): which access comes second is the schedule's choice."""
    return sorted(norm(a[3].go_func or TEST_FRAME.get(a[3].func, a[3].func), pkg) for a in (f.access, f.previous))


def same_race_state(hand: list[str], gen: list[str], pkg: str) -> bool:
    """A race's Go crash states (its two access sites) name the same two Go functions, as a set:
    each port sorts the pair by its own Python names, which differ between hand and generated
    ports; a hand scenario's frame without a Go site stands for the Go test (TEST_FRAME)."""
    return sorted(norm(TEST_FRAME.get(f, f)) for f in hand) == sorted(norm(f, pkg) for f in gen)


def first_failure(main, limit, **kw):
    for seed in range(limit):
        f = gosim.run(main, strategy=RandomStrategy(seed=seed), **kw).failure
        if f is not None:
            return seed, f
    return None, None


@pytest.mark.parametrize("twin", PARAMS)
def test_the_twin_ports_as_the_table_says(table, twin):
    tmp, binary = table
    out = tmp / twin.replace("/", "-")
    files, refused = T.port_twin(twin, str(out), binary, T.prefetch(binary, [twin]))  # both builds at once
    want = EXPECTED[twin]
    if want is not None:
        assert files is None and T.constructs(refused) == want, refused or "translated"
        return
    assert refused is None, refused
    if twin in OPEN:
        return  # translated; the comparison with the hand port is open (OPEN says why)
    if twin in SEED:
        return check_seed(twin, out)
    sys.path.insert(0, "tests/gosim")
    from tests.gosim.test_examples import MEASURED, bound as measured_bound
    from tests.gosim.test_hard_cases import FIND

    def bound(case_id, column):  # the hard cases' budget is their own test's (random strategy)
        return measured_bound(case_id, column) if case_id in MEASURED else FIND[case_id][1]
    case = examples.load(HAND[twin])
    pkg = "fuzzfarm.dev/gotwins/" + twin  # Go's name of the package: its import path (gotwins/go.mod)
    hand_edit(twin, out)
    buggy, fixed = load(out, "buggy"), load(out, "fixed")
    # the starvation bound: a twin whose clock is scaled runs under the realism bound scaled
    # likewise (twin_table.BOUND), another under the hand port's (hc18: 0.1 s, without which a
    # schedule fires its 4 h idle timer while every other goroutine is still runnable)
    starve = T.BOUND.get(twin, case.RUN_KW.get("max_starvation_s"))
    seed, gf = first_failure(rt.test_main(buggy.TestScenario, "TestScenario"), bound(case.ID, 0), check_leaks=False,
                             max_starvation_s=starve)
    assert gf is not None, f"{twin}: the generated port found nothing in {bound(case.ID, 0)} runs"
    if twin in LEAK_CHECK:
        return check_leak_check(twin, case, gf, pkg, fixed, bound(case.ID, 0))
    assert gf.kind in case.KINDS, (gf.kind, case.KINDS)
    # the hand port's crash state for that kind, with the detector on as in the generated run
    _, hf = first_failure(case.buggy, 50 * bound(case.ID, 0), **{**case.RUN_KW, "race": gf.kind == "data race"})
    assert hf is not None and hf.kind == gf.kind, (twin, hf, gf)
    if gf.kind == "data race":
        # a race's identity is its pair of sites (DataRace.crash_state, the bucket): which of the
        # two accesses comes second, and so whose stack the Go crash state is, is the schedule's
        assert race_pair(hf) == race_pair(gf, pkg), (race_pair(hf), race_pair(gf, pkg))
        # ... and the Go crash state a user reads is that pair (DataRace.go_crash_state), in both ports
        assert race_pair(gf, pkg) == sorted(norm(f, pkg) for f in gf.go_crash_state), gf.go_crash_state
        assert same_race_state(hf.go_crash_state, gf.go_crash_state, pkg), (hf.go_crash_state, gf.go_crash_state)
    else:
        assert same_state(hf.go_crash_state, gf.go_crash_state, pkg), (hf.go_crash_state, gf.go_crash_state)
    _, ff = first_failure(rt.test_main(fixed.TestScenario, "TestScenario"), FIXED_RUNS, check_leaks=False,
                          max_starvation_s=starve)
    assert ff is None, f"{twin}: the generated port fails on fixed: {ff}"


def leaked_states(f) -> list[list[str]]:
    """The Go crash state of each goroutine a failure's dumps show besides the failing one."""
    return [[f"{s.go_func} ({s.go_site})" for s in d.stack if s.go_func] for d in f.dumps[1:]]


def check_leak_check(twin, case, gf, pkg, fixed, budget):
    """LEAK_CHECK's comparison: the generated port's failure is the Go test's own leak check, the
    hand port's a goroutine leak whose leaked goroutine the check left running; fixed clean."""
    assert "goroutine leak" in case.KINDS, case.KINDS
    assert isinstance(gf.cause, rt.TestFailed) and gf.go_crash_state[0] == f"{pkg}.{LEAK_CHECK[twin]}", gf
    _, hf = first_failure(case.buggy, 50 * budget, **case.RUN_KW)
    assert hf is not None and hf.kind == "goroutine leak", (twin, hf)
    assert any(same_state(hf.go_crash_state, g, pkg) for g in leaked_states(gf)), (hf.go_crash_state, leaked_states(gf))
    _, ff = first_failure(rt.test_main(fixed.TestScenario, "TestScenario"), FIXED_RUNS, check_leaks=False,
                          max_starvation_s=T.BOUND[twin])
    assert ff is None, f"{twin}: the generated port fails on fixed: {ff}"


def check_seed(twin, out, seeds=None, fixed_runs=FIXED_RUNS, hand_runs=HAND_SEED_RUNS):
    """A seed twin: the generated harness carries the twin's bound; under it (and the hand
    harness's run keywords, twin_table.RUN_KW) the generated port finds a failure of a kind and
    Go crash state the hand harness gives for the seed bug (which shape is the schedule's: the
    checker's S1/S2/S3, the cluster builder's map write or iteration), and stays clean on fixed.
    ``seeds``: the strategy seeds to search (default: SEED's runs from 0)."""
    import importlib
    import random

    from fuzzfarm.strategies import make
    module, strategy, runs = SEED[twin]
    seeds = range(runs) if seeds is None else seeds
    pkg = "fuzzfarm.dev/gotwins/" + twin
    bound = load(out, "harness").harness.run_kw.get("max_starvation_s")
    assert bound == T.BOUND.get(twin), bound
    kw = T.RUN_KW.get(twin, {})
    buggy, fixed = load(out, "buggy"), load(out, "fixed")

    def first(mod, seeds):
        for seed in seeds:
            f = gosim.run(rt.test_main(mod.TestScenario, "TestScenario"), strategy=make(strategy, seed=seed),
                          check_leaks=False, max_starvation_s=bound, **kw).failure
            if f is not None:
                return f
    gf = first(buggy, seeds)
    assert gf is not None, f"{twin}: the generated port found nothing in {strategy} seeds {seeds}"
    hand = importlib.import_module(module).harness
    rng = random.Random(1)
    states = {tuple(f.go_crash_state) for f in (hand.execute(rng.randbytes(rng.randrange(64)), "buggy").report.failure
                                                for _ in range(hand_runs)) if f is not None and f.kind == gf.kind}
    assert any(same_state(list(h), gf.go_crash_state, pkg) for h in states), (gf.kind, gf.go_crash_state, states)
    assert first(fixed, range(fixed_runs)) is None, f"{twin}: the generated port fails on fixed"


def test_the_checker_seed_twin_bounded(table):
    """The default tier's guard of the checker (its full check is slow): ported with its bound, the
    pct seeds around the first that finds the seed bug (136 of 0..299) still find it, with a crash
    state of the hand harness's seed bug, and 20 fixed runs stay clean."""
    tmp, binary = table
    out = tmp / "checker-bounded"
    files, refused = T.port_twin("checker", str(out), binary)
    assert refused is None, refused
    check_seed("checker", out, seeds=range(130, 140), fixed_runs=20, hand_runs=30)


def test_the_clusterbuilder_seed_twin_bounded(table):
    """The default tier's guard of the cluster builder (its full check is slow): ported with no
    hand edit (generics, net/http, a struct-keyed map, sibling packages' vars), the random seeds
    around the first that finds the seed bug (65 of 0..199) still find a map failure in
    cache.defaultOpts <- cache.New <- cluster.New, a crash state of the hand harness, and 20
    fixed runs stay clean."""
    tmp, binary = table
    out = tmp / "clusterbuilder-bounded"
    files, refused = T.port_twin("clusterbuilder", str(out), binary)
    assert refused is None, refused
    assert [f for f in files if "/stub_" in f] == [] and "clusterbuilder" not in HAND_EDITS
    check_seed("clusterbuilder", out, seeds=range(63, 67), fixed_runs=20)


def test_same_state_tells_crash_states_apart():
    hand = ["leaderelection.RunWithLeaderElection.func2 (run_with_leaderelection.go:53)", "LeaderElector.Run (leaderelection.go:213)"]
    p = "x.dev/m/hc01"
    assert same_state(hand, [f"{p}.RunWithLeaderElection.func2 (a.go:28)", f"{p}.(*LeaderElector).Run (b.go:40)", f"{p}.X (a.go:1)"], p)
    assert not same_state(hand, [f"{p}.RunWithLeaderElection.func2 (a.go:28)", "Defers.__exit__", f"{p}.(*LeaderElector).Run (b.go:40)"], p)
    assert not same_state(hand, [f"{p}.RunWithLeaderElection.func1 (a.go:28)", f"{p}.(*LeaderElector).Run (b.go:40)"], p)
    # a sub-package of the twin's module: Go prints its import path, the hand port its package name
    sub = ["cache.defaultOpts (cache.go:488)", "cache.New (cache.go:307)"]
    c = "fuzzfarm.dev/gotwins/clusterbuilder"
    assert same_state(sub, [f"{c}/cache.defaultOpts (cache/cache.go:275)", f"{c}/cache.New (cache/cache.go:109)"], c)
    assert not same_state(sub, [f"{c}/cache.New (cache/cache.go:109)", f"{c}/cache.defaultOpts (cache/cache.go:275)"], c)


def test_the_doc_table_names_exactly_the_hand_edits():
    """docs/PORT.md's twin table says "with N hand edit(s)" for exactly the twins HAND_EDITS edits
    (N its edits), and no other row claims one."""
    import os
    doc = open(os.path.join(T.ROOT, "docs", "PORT.md"), encoding="utf-8").read()
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| ((?:examples/)?\w+) \| [^|]* \| [^|]* \| (.*) \|$", doc, re.M)}
    assert set(HAND) <= set(rows), set(HAND) - set(rows)
    for twin in HAND:
        n = sum(len(edits) for edits in HAND_EDITS.get(twin, {}).values())
        claims = re.search(r"with (\w+) hand edits?", rows[twin])
        claimed = claims.group(1) if claims and claims.group(1) != "no" else None
        assert claimed == ({1: "one"}.get(n, str(n)) if n else None), (twin, rows[twin][:120])


def test_hc16_ports_with_no_stub_to_fill_in(table):
    """The default tier's guard of hc16 (its full run is slow): with the strings model its port
    writes no stub, so it needs no hand edit (its strings.Split was one)."""
    tmp, binary = table
    files, refused = T.port_twin("examples/hc16", str(tmp / "hc16-stubs"), binary)
    assert refused is None, refused
    assert [f for f in files if "/stub_" in f] == [] and "examples/hc16" not in HAND_EDITS
    assert any("gostrings.split(" in open(f).read() for f in files if f.endswith("buggy.py"))


def test_hc03_crash_state_lists_the_pair_in_go_s_dump_order(go, tmp_path):
    """hc03's lock-order deadlock under Go: a copy of the buggy twin with a sleep before each
    goroutine's second lock deadlocks every run; Go names no goroutine of it, and its
    `go test -timeout` dump lists the pod delete (handleLocalPodSelectorDelFuncOld) before the
    policy delete (removeHandler). The crash state gosim gives the hand port, and the generated
    one, lists the pair in that order (gosim.waitfor orders a cycle by Go names: by the hand
    port's Python names it put removeHandler first)."""
    import shutil

    from fuzzfarm.gotool import run_go
    src = tmp_path / "hc03"
    shutil.copytree(f"{T.TWINS_DIR}/examples/hc03", src)
    (src / "go.mod").write_text("module fuzzfarm.dev/gotwins/examples/hc03\n\ngo 1.24\n")
    for name, anchor in (("policy_old.go", "\tnp.Lock()\n\tdefer np.Unlock()\n\n\tif np.deleted"),
                         ("factory_buggy.go", "\tinf := wf.pods\n\n\tinf.Lock()\n\tdefer inf.Unlock()\n\tif _, ok")):
        text = (src / name).read_text()
        assert text.count(anchor) == 1, name
        text = text.replace(anchor, "\ttime.Sleep(50 * time.Millisecond)\n" + anchor, 1)
        (src / name).write_text(re.sub(r"^package hc03\n", 'package hc03\n\nimport "time"\n', text, count=1, flags=re.M))
    p = run_go(["test", "-count=1", "-timeout=2s", "-run", "^TestScenario$", "."], cwd=str(src))
    dump = p.stdout + p.stderr
    assert "panic: test timed out" in dump, dump[-3000:]
    pair = ("handleLocalPodSelectorDelFuncOld", "removeHandler")
    go_order = []  # the first function of the twin's package in each goroutine waiting for a lock, in dump order
    for block in re.split(r"\n\n+", dump):
        top = re.search(r"^examples/hc03\.(?:\(\*?\w+\)\.)?(\w+)\(", block.replace("fuzzfarm.dev/gotwins/", ""), re.M)
        if block.startswith("goroutine ") and "[sync.Mutex.Lock]" in block.split("\n", 1)[0] and top:
            go_order.append(top.group(1))
    assert sorted(go_order) == sorted(pair), dump[-3000:]
    _, hf = first_failure(examples.load("hc03").buggy, 500, **examples.load("hc03").RUN_KW)
    assert [norm(f).rsplit(".", 1)[-1] for f in hf.go_crash_state[:2]] == go_order, (hf.go_crash_state, go_order)
