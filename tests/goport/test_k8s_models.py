"""The Kubernetes models of `fuzzfarm port` (fuzzfarm/goport/k8s.py; docs/PORT.md#models):
apimachinery's `wait` and client-go's `workqueue`.

Go here has no module proxy, so testdata/k8s holds minimal Go implementations of those two
packages (`apimachinery/`, `client-go/`, written for these tests with upstream's behaviour and
locking, citing upstream's lines) and a program, `app/`, whose go.mod replaces the real modules
with them: goast type-checks the program through the module's own resolution (`go list
-export`), the translator maps the imports to the models, and each translated test must end as
`go test -race` ends it (Go decides), over schedules of two strategies. The tests check what
holds in every Go execution (call counts the code fixes, errors, the queue's rules, Backoff's
steps) and the happens-before edges the packages give (the queue's lock, ShutDownWithDrain
waiting for Done, Until returning after f; and a read Until does not order: a race).
"""

from __future__ import annotations

import pytest

from tests.go_fixtures import go  # noqa: F401 - the fixture
from tests.goport.test_lang import built, go_outcome, go_test_names, port_outcomes

PKG = "k8s/app"
NAMES = go_test_names(PKG)
RACES = {"TestUntilStillRunning"}  # the others pass under go test -race


def test_the_program_imports_the_modelled_packages(go, tmp_path_factory):
    import inspect
    mod, _ = built(PKG, tmp_path_factory)
    src = inspect.getsource(mod)
    assert "from fuzzfarm.goport import k8s" in src and "k8s.until(" in src and "k8s.new_named(" in src, src[:2000]
    assert not any(n.startswith("stub_") for n in vars(mod)), "an import became a stub"


@pytest.mark.parametrize("name", NAMES)
def test_translated_k8s_test_ends_as_go_test_race_does(go, tmp_path_factory, name):
    mod, binary = built(PKG, tmp_path_factory)
    want = go_outcome(binary, name)
    assert want == ("race" if name in RACES else "ok"), (name, want)
    assert port_outcomes(mod, name, seeds=6) == {want}, (name, want)


def test_an_import_the_module_cannot_resolve_is_one_line(go, tmp_path, capsys):
    """Inside a module, an import neither the standard library, the module nor its requirements
    hold: one line naming it, exit 2, nothing written."""
    from fuzzfarm.cli import main as cli_main
    src = tmp_path / "miss"
    src.mkdir()
    (src / "go.mod").write_text("module example.com/miss\n\ngo 1.24\n")
    (src / "a.go").write_text('package miss\n\nimport "example.org/nope/x"\n\nfunc F() { x.G() }\n')
    with pytest.raises(SystemExit) as e:
        cli_main(["port", str(src), "-o", str(tmp_path / "out")])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["fuzzfarm port: a.go:3: could not import example.org/nope/x (neither in the standard library, this "
                   "package's module nor the modules it requires): fix the Go (it must build with `go build`) and run again"], err
    assert not (tmp_path / "out").exists()
