"""hc11 and hc12, the Go twins whose test checks for leaked goroutines itself
(`runtime.NumGoroutine()` after a 10 ms grace, then a goroutine dump through
`pprof.Lookup("goroutine").WriteTo(os.Stderr, 1)` and `t.Fatalf`): translated with no hand edit,
the generated port's test fails at that check on buggy (as `go test -race` on the buggy twins
does) and passes on fixed (docs/PORT.md's twin table; test_twins.OPEN says why the hand ports,
which end as gosim's own goroutine leak, are not compared)."""

from __future__ import annotations

import pytest

from fuzzfarm import gosim
from fuzzfarm.goport import rt
from fuzzfarm.strategies import make

from tests.go_fixtures import go  # noqa: F401 - the fixture
from tests.goport import twin_table as T
from tests.goport.test_port import load

CHECK = "TestScenario: goroutine leak: "


def outcomes(mod, strat, runs, bound=0.1):
    out = []
    for seed in range(runs):
        f = gosim.run(rt.test_main(mod.TestScenario, "TestScenario"), strategy=make(strat, seed=seed),
                      check_leaks=False, max_starvation_s=bound).failure
        out.append(None if f is None else (type(f.cause).__name__ if f.cause is not None else f.kind, str(f)))
    return out


@pytest.mark.parametrize("twin, strat, found", [("examples/hc11", "pct", 20), ("examples/hc12", "random", 14)])
def test_the_go_test_s_leak_check_finds_the_leak_and_fixed_passes(go, tmp_path, twin, strat, found):
    binary = T.goast_binary(str(tmp_path))
    files, refused = T.port_twin(twin, str(tmp_path / "out"), binary)
    assert refused is None, refused
    buggy, fixed = load(tmp_path / "out", "buggy"), load(tmp_path / "out", "fixed")
    got = outcomes(buggy, strat, 20)
    # each failure is the test's own check, reached after the goroutine dump was written
    assert all(o is not None and o[0] == "TestFailed" and CHECK in o[1] for o in got if o is not None), got
    assert sum(o is not None for o in got) >= found, got
    assert outcomes(fixed, strat, 20) == [None] * 20
