"""A failed Go test reads as Go prints it: ``--- FAIL: TestX`` and its message once, no ``panic:``
line (a newcomer's report showed ``panic: --- FAIL: ...`` and the message twice)."""

from __future__ import annotations

from fuzzfarm import gosim
from fuzzfarm.goport import rt
from fuzzfarm.gotool import run_go
from fuzzfarm.strategies import make

from tests.go_fixtures import go  # noqa: F401 - the fixture
from tests.goport.test_port import load, port

GO_MOD = "module example.com/failing\n\ngo 1.22\n"
GO_TEST = """package failing

import "testing"

func TestCount(t *testing.T) {
	n := 1
	if n != 2 {
		t.Fatalf("requests = %d, want %d", n, 2)
	}
}
"""


def test_a_failed_test_says_fail_as_go_does_and_its_message_once(go, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "go.mod").write_text(GO_MOD)
    (src / "count_test.go").write_text(GO_TEST)
    p = run_go(["test", "-count=1", "."], cwd=str(src))
    said = p.stdout + p.stderr
    assert p.returncode == 1 and "--- FAIL: TestCount" in said and "requests = 1, want 2" in said, said
    assert "panic:" not in said, said  # a failed test is no panic in Go
    mod = load(port(tmp_path, str(src), "--test", "TestCount"), "port")
    r = gosim.run(rt.test_main(mod.TestCount, "TestCount"), strategy=make("random", seed=0), check_leaks=False)
    f = r.failure
    assert f.go_says == "--- FAIL: TestCount: requests = 1, want 2", f.go_says
    assert not f.render().startswith("panic:"), f.render()
    assert str(f).count("requests = 1, want 2") == 1, str(f)
