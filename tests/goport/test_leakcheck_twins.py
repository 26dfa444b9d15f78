"""hc11 and hc12, the Go twins whose test checks for leaked goroutines itself
(`runtime.NumGoroutine()` after a 10 ms grace, then a goroutine dump through
`pprof.Lookup("goroutine").WriteTo(os.Stderr, 1)` and `t.Fatalf`): translated with no hand edit,
the generated port's test fails at that check on buggy (as `go test -race` on the buggy twins
does) and passes on fixed, under the realism bound scaled as the twins' clocks are
(twin_table.BOUND); and the goroutines the check finds still running are those Go's own dump
lists (test_twins.LEAK_CHECK compares them with the hand ports' goroutine leak)."""

from __future__ import annotations

import os
import re

import pytest

from fuzzfarm import gosim
from fuzzfarm.goport import rt
from fuzzfarm.gotool import run_go
from fuzzfarm.strategies import make

from tests.go_fixtures import go  # noqa: F401 - the fixture
from tests.goport import twin_table as T
from tests.goport.test_port import load

CHECK = "TestScenario: goroutine leak: "


def failures(mod, strat, runs, bound):
    return [gosim.run(rt.test_main(mod.TestScenario, "TestScenario"), strategy=make(strat, seed=seed),
                      check_leaks=False, max_starvation_s=bound).failure for seed in range(runs)]


def outcomes(mod, strat, runs, bound):
    return [None if f is None else (type(f.cause).__name__ if f.cause is not None else f.kind, str(f))
            for f in failures(mod, strat, runs, bound)]


@pytest.mark.parametrize("twin, strat, found", [("examples/hc11", "pct", 20), ("examples/hc12", "random", 14)])
def test_the_go_test_s_leak_check_finds_the_leak_and_fixed_passes(go, tmp_path, twin, strat, found):
    binary = T.goast_binary(str(tmp_path))
    files, refused = T.port_twin(twin, str(tmp_path / "out"), binary)
    assert refused is None, refused
    buggy, fixed = load(tmp_path / "out", "buggy"), load(tmp_path / "out", "fixed")
    got = outcomes(buggy, strat, 20, T.BOUND[twin])
    # each failure is the test's own check, reached after the goroutine dump was written
    assert all(o is not None and o[0] == "TestFailed" and CHECK in o[1] for o in got if o is not None), got
    assert sum(o is not None for o in got) >= found, got
    assert outcomes(fixed, strat, 20, T.BOUND[twin]) == [None] * 20


def go_leaked(twin: str, count: int, flags: tuple) -> set[str]:
    """`go test -count=COUNT` on the buggy twin: the functions of the twin's package at the top of
    each goroutine the failed leak checks' dumps (pprof debug=1) list besides the test's own."""
    p = run_go(["test", *flags, f"-count={count}", "-run", "^TestScenario$", "."], cwd=os.path.join(T.TWINS_DIR, twin))
    assert "--- FAIL: TestScenario" in p.stdout + p.stderr, p.stdout[-2000:]
    pkg = "fuzzfarm.dev/gotwins/" + twin
    tops = set()
    for record in re.split(r"\n\n+", p.stdout + p.stderr):  # one record per distinct stack
        funcs = re.findall(r"^#\s+0x[0-9a-f]+\s+(\S+)\+0x", record, re.M)
        ours = [f.removeprefix(pkg + ".") for f in funcs if f.startswith(pkg + ".")]
        if ours and "checkLeaks" not in ours:
            tops.add(ours[0])
    return tops


# hc12's leak needs a schedule: `go test -race` leaks in 24 of 40 runs, without -race in 9 of 300
@pytest.mark.parametrize("twin, strat, count, flags", [("examples/hc11", "pct", 1, ()), ("examples/hc12", "random", 40, ("-race",))])
def test_the_goroutines_the_check_finds_are_those_go_s_dump_lists(go, tmp_path, twin, strat, count, flags):
    """The generated port's leak check leaves the goroutines running that Go's does: the top Go
    function of each goroutine in the failures' dumps (besides the test's) is one `go test`'s
    goroutine dump lists (hc11: the poller, `poller.func1.1`; hc12: `batchPerform.func1`)."""
    files, refused = T.port_twin(twin, str(tmp_path / "out"), T.goast_binary(str(tmp_path)))
    assert refused is None, refused
    pkg = "fuzzfarm.dev/gotwins/" + twin
    port = {d.stack[0].go_func.removeprefix(pkg + ".") for f in failures(load(tmp_path / "out", "buggy"), strat, 10, T.BOUND[twin])
            if f is not None for d in f.dumps[1:] if d.stack and d.stack[0].go_func}
    leaked = go_leaked(twin, count, flags)
    assert port and port == leaked, (port, leaked)
