"""Real Go on the reduction probes (reduction_probes.py): the ``len(ch)`` probe is a legal Go
program (``go test -race`` reports nothing, so its failing schedule is one a correct proof must
find), while the closure probe is a data race (which is why the reduction may assume it away,
and why the proof line must say that it did). Both twins run in one ``go test`` binary."""

import re
import textwrap

from fuzzfarm.gotool import run_go

TWINS = textwrap.dedent("""\
    package probes

    import (
        "sync"
        "testing"
    )

    // reduction_probes.py, variant len_chan: a sender on a Chan(1); main reads len(ch) under
    // a mutex the sender never takes, then starts a bystander.
    func TestLenChan(t *testing.T) {
        for i := 0; i < 50; i++ {
            var mu sync.Mutex
            var wg sync.WaitGroup
            ch := make(chan int, 1)
            wg.Add(2)
            go func() { ch <- 1; wg.Done() }()
            mu.Lock()
            n := len(ch)
            mu.Unlock()
            go func() { wg.Done() }()
            wg.Wait()
            _ = n // n == 1 is the failure the search must find; either value is legal Go
        }
    }

    // variant closure: the writer sets a variable main reads under the unrelated mutex.
    func TestClosure(t *testing.T) {
        var mu sync.Mutex
        var wg sync.WaitGroup
        box := 0
        wg.Add(1)
        go func() { box = 1; wg.Done() }()
        mu.Lock()
        n := box
        mu.Unlock()
        wg.Wait()
        _ = n
    }
    """)


def _result(out: str, name: str) -> str:
    m = re.search(rf"--- (PASS|FAIL): {name} ", out)
    return m.group(1) if m else "?"


def test_len_chan_is_legal_go_and_the_closure_variable_is_a_data_race(go, tmp_path):
    (tmp_path / "go.mod").write_text("module probes\n\ngo 1.27\n")
    (tmp_path / "probes_test.go").write_text(TWINS)
    p = run_go(["test", "-race", "-count=1", "-v", "."], cwd=str(tmp_path))
    out = p.stdout + p.stderr
    assert _result(out, "TestLenChan") == "PASS", out
    assert _result(out, "TestClosure") == "FAIL" and "WARNING: DATA RACE" in out, out
    assert out.count("WARNING: DATA RACE") == 1, out  # the closure's, and nothing in TestLenChan
