"""The Go toolchain fuzzfarm asks: installed by the project's own files, with -race, offline."""

import textwrap

from fuzzfarm.gotool import go_version, run_go


def test_go_is_installed_with_the_race_detector(go, tmp_path):
    assert go_version().startswith("go1.")
    (tmp_path / "go.mod").write_text("module probe\n\ngo 1.27\n")
    (tmp_path / "probe_test.go").write_text(textwrap.dedent("""\
        package probe

        import (
            "sync"
            "testing"
        )

        func TestRace(t *testing.T) {
            x := 0
            var wg sync.WaitGroup
            wg.Add(1)
            go func() { x = 1; wg.Done() }()
            _ = x
            wg.Wait()
        }
        """))
    p = run_go(["test", "-race", "-count=1", "."], cwd=str(tmp_path))
    assert p.returncode == 1, p.stdout + p.stderr
    assert "WARNING: DATA RACE" in p.stdout + p.stderr
