"""`fuzzfarm port`: Go in, a gosim harness package out (docs/PORT.md).

The programs under testdata/ are Go packages in the Go twins' shape (buggy/fixed by build tags,
a TestScenario) and verbatim copies of conformance cases. Each is translated with the CLI, with
no hand edit, imported from the output directory, and run: the generated harness must find the
bug on buggy and stay clean on fixed, and the translated conformance cases must end as Go does.
"""

from __future__ import annotations

import importlib
import json
import os
import random
import shutil
import re
import subprocess
import sys

import pytest

from fuzzfarm import gosim
from fuzzfarm.cli import main as cli_main
from fuzzfarm.goport import rt
from fuzzfarm.gosim.failures import go_frame_text
from fuzzfarm.gotool import run_go
from fuzzfarm.strategies import make

from tests.go_fixtures import go  # noqa: F401 - the fixture

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "testdata")
CONFORM = ["CloseClosedChan", "SendOnClosedWhileBlocked", "RecvClosedAfterDrain", "SelectDefaultNothingReady",
           "SelectDefaultReady", "RangeOverClosedChan", "CondBroadcastWakesAll",
           # testdata/conform/more.go: the translator's own semantics
           "StructValueSemantics", "ClosurePerIteration", "DeferOrderAndErrors", "SwitchAndIntDivision",
           # testdata/conform/cases_test.go: the testing.T model
           "CopiesAndInterfaces", "EmptyStructChannel", "ErrorfFails", "FatalEndsTheTest", "CleanupRunsLastFirst", "Passes"]


def port(tmp_path, src, *args):
    out = tmp_path / "out"
    try:
        cli_main(["port", src, "-o", str(out), *args])
    except SystemExit as e:
        assert e.code == 0, e.code
    return out


def load(out, module):
    sys.path.insert(0, str(out))
    try:
        pkg = next(p for p in os.listdir(out) if p.endswith("_port"))
        for m in [m for m in sys.modules if m.startswith(pkg)]:
            del sys.modules[m]
        return importlib.import_module(f"{pkg}.{module}")
    finally:
        sys.path.remove(str(out))


def inputs(n=60, seed=1):
    rng = random.Random(seed)
    return [rng.randbytes(rng.randrange(41)) for _ in range(n)]


@pytest.mark.parametrize("prog, kind", [("counter", "data race"), ("tracker", "goroutine panic")])
def test_generated_harness_finds_the_bug_on_buggy_and_not_on_fixed(go, tmp_path, prog, kind):
    out = port(tmp_path, os.path.join(DATA, prog), "--test", "TestScenario")
    assert (out / "pyproject.toml").read_text().count('"fuzzfarm.harnesses"') == 1
    h = load(out, "harness")
    found = [d for d in inputs() if h.execute(d, "buggy").failure is not None]
    assert found, f"{prog}: the generated harness never failed on buggy"
    f = h.execute(found[0], "buggy").failure
    assert f.kind == kind, f
    for d in inputs():
        assert h.execute(d, "fixed").failure is None, (prog, d.hex())


def test_every_generated_function_cites_its_go_line(go, tmp_path):
    out = port(tmp_path, os.path.join(DATA, "tracker"), "--test", "TestScenario")
    src = next((out).glob("*_port/buggy.py")).read_text()
    # Go names a function by its package's import path (testdata/tracker/go.mod), as its tracebacks do
    assert '@gosim.go_func("example.com/tracker.(*Tracker).Stop", "tracker.go:19")' in src
    assert '@gosim.go_func("example.com/tracker.(*Tracker).Start.func1", "start_buggy.go:8")' in src
    assert "cancel()  # :24" in src  # the nil call, at its Go line
    h = load(out, "harness")
    f = next(h.execute(d, "buggy").failure for d in inputs() if h.execute(d, "buggy").failure is not None)
    assert "(*Tracker).Stop (tracker.go:24)" in f.render(), f.render()


def go_outcome(binary, name):
    p = subprocess.run([binary, "-test.run", f"^Test{name}$", "-test.count=1"], capture_output=True, text=True, timeout=120)
    for line in (p.stdout + p.stderr).splitlines():
        if line.startswith(("panic: ", "fatal error: ")):
            return re.sub(r" \[recovered.*\]$", "", line)
    if "--- FAIL:" in p.stdout:
        return "FAIL"
    assert p.returncode == 0, p.stdout + p.stderr
    return "ok"


def gosim_outcome(report):
    f = report.failure
    if f is None:
        return "ok"
    return "FAIL" if isinstance(f.cause, rt.TestFailed) else f.go_says


def test_translated_conformance_cases_end_as_go_does(go, tmp_path):
    out = port(tmp_path, os.path.join(DATA, "conform"), "--test", "TestCloseClosedChan")
    mod = load(out, "port")
    binary = str(tmp_path / "conform.test")
    p = run_go(["test", "-c", "-o", binary, "."], cwd=os.path.join(DATA, "conform"))
    assert p.returncode == 0, p.stderr
    for name in CONFORM:
        want = go_outcome(binary, name)
        seen = set()
        for seed in range(12):
            for strat in ("random", "pct"):
                # `go test` without -race is the judge here: the detector off (test_main turns it
                # on otherwise, as -race has it; a close racing a blocked send is a race there)
                r = gosim.run(rt.test_main(getattr(mod, f"Test{name}"), name), strategy=make(strat, seed=seed),
                              check_leaks=False, race=False)
                seen.add(gosim_outcome(r))
        assert seen == {want}, (name, want, seen)


@pytest.mark.parametrize("go_src, line", [
    ("package p\n\nimport _ \"unsafe\"\n",
     'a.go:3: import "unsafe" has no gosim model: not supported;'),
    ("package p\n\nfunc F(x string) string {\n\treturn x[0:1]\n}\n", "a.go:4: slice expression of string: not supported;"),
    ("package p\n\nfunc F( {\n", "a.go:3: expected ')', found '{': fix the Go"),
    ("package p\n\nimport \"example.com/nothere\"\n\nfunc F() { nothere.G() }\n", "a.go:3: could not import example.com/nothere"),
    ("package p\n\nfunc F(x any) int {\n\treturn x.(int)\n}\n\nfunc G() int { return F(int64(1)) + F(2) }\n",
     "a.go:4: type assertion to int while int64 is also put in an interface (one Python int): not supported;"),
    ("package p\n\ntype T struct{ n int }\n\nfunc F(x any) bool {\n\t_, ok := x.(*T)\n\treturn ok\n}\n\nfunc G() bool { return F(T{}) }\n",
     "a.go:6: type assertion to *T while T is also put in an interface: not supported;"),
    ("package p\n\nvar n = m + 1\n\nvar m = 2\n\nfunc F() int { return n }\n",
     "a.go:3: package-level var initialised from m, declared later: not supported;"),
    ("package p\n\nimport \"time\"\n\nfunc F() any {\n\treturn time.Now()\n}\n",
     "a.go:1: a time.Time put in an interface (printed or stored as any): not supported;"),
    ("package p\n\nfunc F(c chan int) {\n\tdefer func() { recover() }()\n\tclose(c)\n}\n",
     "a.go:4: recover() in a package where gosim raises panics it cannot recover (close at a.go:5): not supported;"),
    ("package p\n\nfunc F() (ps []*int) {\n\tfor i := 0; i < 3; i++ {\n\t\tps = append(ps, &i)\n\t}\n\treturn\n}\n",
     "a.go:4: address of a three-clause for loop's variable: not supported;"),
    ("package p\n\ntype T struct{ n int }\n\nfunc (t *T) F() **T { return &t }\n",
     "a.go:5: the receiver t in a cell (its address taken, or a closure assigns it): not supported;"),
    ("package p\n\ntype set map[string]bool\n\nfunc (s *set) reset() { *s = set{} }\n",
     "a.go:5: pointer-receiver method on non-struct type set: not supported;"),
    ("package p\n\nfunc F(m map[[2]int]bool) bool {\n\treturn m[[2]int{1, 2}]\n}\n",
     "a.go:4: map with an array key: not supported;"),
    ("package p\n\ntype set map[string]bool\n\nfunc (s set) Len() int { return len(s) }\n\nfunc f() (set, error) { return set{}, nil }\n\n"
     "func G() (interface{ Len() int }, error) {\n\treturn f()\n}\n",
     "a.go:10: a set put in an interface by a multi-value call (it must be boxed or kept a typed nil there): not supported;"),
    ("package p\n\ntype T struct{}\n\nfunc f() (*T, int) { return nil, 1 }\n\nfunc use(a any, n int) bool { return a == nil }\n\n"
     "func G() bool {\n\treturn use(f())\n}\n",
     "a.go:10: a *T put in an interface by a multi-value call (it must be boxed or kept a typed nil there): not supported;"),
    ("package p\n\nvar calls = 0\n\nfunc Calls() int { return calls }\n",
     "a.go:5: package-level calls and Calls have one Python name calls: not supported;"),
    # generics: what one instance per instantiation cannot say exactly (docs/PORT.md)
    ("package p\n\ntype S interface{ M() int }\n\nfunc F[T S](x T) int {\n\treturn x.M()\n}\n\n"
     "type A struct{}\n\nfunc (A) M() int { return 1 }\n\nfunc G() int { return F(A{}) }\n",
     "a.go:6: method M called on a value of a type parameter: not supported;"),
    ("package p\n\nfunc F[T any](x T) any {\n\treturn x\n}\n\nfunc G() any { return F(1) }\n",
     "a.go:4: a value of type T (a type parameter's) put in an interface: not supported;"),
    ("package p\n\ntype Box[T any] struct{ v T }\n",
     "a.go:3: generic type: not supported;"),
    ("package p\n\ntype T struct{}\n\nfunc F(m map[string]*T) any {\n\tvar x any\n\tvar ok bool\n\tx, ok = m[\"a\"]\n\t_ = ok\n\treturn x\n}\n",
     "a.go:8: a *T put in an interface by a comma-ok expression (it must be boxed or kept a typed nil there): not supported;"),
    ("package p\n\n// #include <stdlib.h>\nimport \"C\"\n\nfunc F() { C.free(nil) }\n",
     'a.go:4: import "C" (cgo): not supported; C code has no gosim meaning'),
    # two Go names, one Python name: the second definition replaced the first, silently
    ("package p\n\nfunc HTTPServer() int { return 1 }\n\nfunc HttpServer() int { return 2 }\n",
     "a.go:5: package-level HTTPServer and HttpServer have one Python name http_server: not supported; rename one"),
    ("package p\n\ntype T struct{}\n\nfunc (T) URLOf() int { return 1 }\n\nfunc (T) UrlOf() int { return 2 }\n",
     "a.go:7: methods URLOf and UrlOf of T have one Python name url_of: not supported; rename one"),
    # Python reads identifiers NFKC: Go's `ﬁle` (a ligature) and `file` are one Python name
    ("package p\n\nfunc ﬁle() int { return 1 }\n\nfunc file() int { return 2 }\n",
     "a.go:5: package-level ﬁle and file have one Python name file: not supported; rename one"),
    ("package p\n\ntype ﬁle struct{ n int }\n\ntype file struct{ n int }\n",
     "a.go:5: type ﬁle and type file have one Python name file: not supported; rename one"),
    # a testing.T method outside the model: what to do, not "stub it by hand"
    ("package p\n\nimport \"testing\"\n\nfunc F(t *testing.T) { t.Parallel() }\n",
     "a.go:5: method testing.T.Parallel has no gosim model: not supported; remove the call: a test run alone"),
    # a struct's class hid the runtime module (every run an AttributeError, reported as a panic)
    ("package p\n\ntype rt struct{ n int }\n\nfunc F() int { return rt{n: 1}.n }\n",
     "a.go:3: struct type rt (a name Python or the port's runtime needs): not supported; rename the type"),
    ("package p\n\ntype lambda struct{ n int }\n\nfunc F() int { return lambda{n: 1}.n }\n",
     "a.go:3: struct type lambda (a name Python or the port's runtime needs): not supported; rename the type"),
    # fmt of a value the port cannot print as Go does (it printed the Python object); an
    # interface-keyed map or a printed interface where T and *T both go into interfaces
    ("package p\n\nimport \"fmt\"\n\ntype T struct{ n int }\n\nfunc F(m map[*T]int) string { return fmt.Sprint(m) }\n",
     "a.go:7: fmt of map[*T]int: the port cannot print a map keyed by *T"),
    ("package p\n\ntype T struct{ n int }\n\nvar a, b any = T{1}, &T{2}\n\nfunc F(k any) int {\n\tm := map[any]int{}\n\tm[k] = 1\n\treturn len(m)\n}\n",
     "a.go:9: a key of an interface-keyed map where struct T is put in interfaces both as T and *T"),
    ("package p\n\nimport \"fmt\"\n\ntype T struct{ n int }\n\nvar a, b any = T{1}, &T{2}\n\nfunc F(k any) string { return fmt.Sprint(k) }\n",
     "a.go:9: fmt of an interface value where struct T is put in interfaces both as T and *T"),
])
def test_bad_input_is_one_line_per_construct_exit_2_nothing_written(go, tmp_path, capsys, go_src, line):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.go").write_text(go_src)
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as e:
        cli_main(["port", str(src), "-o", str(out)])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("fuzzfarm port: " + line), err
    assert not out.exists() and not [p for p in os.listdir(tmp_path) if p.startswith(".fuzzfarm-port")]


def test_a_method_of_a_generic_type_is_refused_not_a_crash(go, tmp_path, capsys):
    """A method with receiver ``*Box[T]`` crashed the translator (KeyError, exit 1)."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.go").write_text("package p\n\ntype Box[T any] struct{ v T }\n\nfunc (b *Box[T]) Get() T { return b.v }\n")
    with pytest.raises(SystemExit) as e:
        cli_main(["port", str(src), "-o", str(tmp_path / "out")])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert all(ln.startswith("fuzzfarm port: a.go:") for ln in err), err
    assert "fuzzfarm port: a.go:5: method of a generic type: not supported; " in "\n".join(err), err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("test", ["helper", "BenchmarkX", "Testlower", "TestInPackageFile"])
def test_a_test_name_that_is_no_go_test_is_one_line_exit_2(go, tmp_path, capsys, test):
    """--test naming a function go test does not run as a test: the harness called it with a
    testing.T and every run failed with a Python TypeError, reported as a bug of the Go."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.go").write_text("package p\n\nimport \"testing\"\n\nfunc helper() int { return 1 }\n\n"
                              "func TestInPackageFile(t *testing.T) {}\n")
    (src / "a_test.go").write_text("package p\n\nimport \"testing\"\n\nfunc BenchmarkX(b *testing.B) {}\n\n"
                                   "func Testlower(t *testing.T) {}\n\nfunc TestReal(t *testing.T) {}\n")
    with pytest.raises(SystemExit) as e:
        cli_main(["port", str(src), "-o", str(tmp_path / "out"), "--test", test])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f": {test} is not a Go test (func TestXxx(t *testing.T) in a _test.go file" in err[0], err
    assert not (tmp_path / "out").exists()
    port(tmp_path / "ok", str(src), "--test", "TestReal")  # the real test ports


def test_a_name_installed_from_elsewhere_is_one_line_regenerating_in_place_is_not(go, tmp_path, capsys, monkeypatch):
    """A port named like an installed harness (or distribution fuzzfarm-NAME) of another package
    was written, and once installed `fuzzfarm harnesses`, explore and fuzz went on running the
    other one (or pip replaced it), without a word. The package pip installed from -o itself
    (direct_url.json, PEP 610) may be regenerated there."""
    site = tmp_path / "site"
    info = site / "fuzzfarm_mine-0.1.0.dist-info"  # what `pip install -e mine` leaves
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fuzzfarm-mine\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text("[fuzzfarm.harnesses]\nmine = mine_port.harness\n")
    (info / "direct_url.json").write_text(json.dumps({"url": (tmp_path / "mine").as_uri(), "dir_info": {"editable": True}}))
    monkeypatch.syspath_prepend(str(site))
    src = os.path.join(DATA, "tracker")
    for args in (["-o", str(tmp_path / "other"), "--name", "mine"],
                 ["-o", str(tmp_path / "checker")]):  # a harness this checkout ships
        with pytest.raises(SystemExit) as e:
            cli_main(["port", src, "--test", "TestScenario", *args])
        assert e.value.code == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "is already installed from elsewhere; pass --name with another name" in err[0], (args, err)
        assert not os.path.exists(args[1])
    assert (port(tmp_path / "x", src, "--test", "TestScenario", "--name", "other") / "pyproject.toml").exists()
    out = tmp_path / "mine"  # regenerated where it was installed from
    with pytest.raises(SystemExit) as e:
        cli_main(["port", src, "--test", "TestScenario", "-o", str(out)])
    assert e.value.code == 0 and (out / "mine_port" / "harness.py").exists()


def test_a_harness_name_too_long_is_one_line_exit_2(go, tmp_path, capsys):
    """fuzzfarm new's rule (64 characters: a table column, a directory, a package name)."""
    with pytest.raises(SystemExit) as e:
        cli_main(["port", os.path.join(DATA, "counter"), "-o", str(tmp_path / "out"), "--name", "a" * 65])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is not valid; pass --name with at most 64 lowercase letters" in err[0], err
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("args, line", [
    (["a/x.go", "b/y.go"], "files of two directories; name one package: a directory, or .go files of one directory"),
    (["a", "b"], "files of two directories; name one package"),
    (["notes.txt"], "notes.txt: not a .go file; name .go files or a Go package directory"),
    (["a/x.go", "a/x.go"], None),  # a file named twice is read once (was "A redeclared")
    (["a", "a/x.go"], None),
])
def test_sources_that_are_not_one_package_are_one_line_exit_2(go, tmp_path, capsys, args, line):
    """Two directories were translated as one package (go build refuses: "named files must all be
    in one directory"), a non-.go file was "no Go file builds with tags", a file named twice
    "redeclared"."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "x.go").write_text("package p\n\nfunc A() int { return 1 }\n")
    (tmp_path / "b" / "y.go").write_text("package p\n\nfunc B() int { return A() }\n")
    (tmp_path / "notes.txt").write_text("package p\n")
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as e:
        cli_main(["port", *[str(tmp_path / a) for a in args], "-o", str(out)])
    if line is None:
        assert e.value.code == 0 and (out / "pyproject.toml").exists()
        return
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and line in err[0], err
    assert not out.exists()


def test_go_files_named_one_by_one_translate_like_their_directory(go, tmp_path):
    """`port a.go b.go`: the usage says GO_FILES_OR_DIR; named files once went to `go run` as part
    of the translator's own program and always failed."""
    src = os.path.join(DATA, "counter")
    files = sorted(os.path.join(src, f) for f in os.listdir(src) if f.endswith(".go") and not f.endswith("_test.go"))
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as e:
        cli_main(["port", *files, "-o", str(out)])
    assert e.value.code == 0
    assert (out / "pyproject.toml").exists()


@pytest.mark.parametrize("target", ["", "afile/sub", "dangling"])
def test_an_unusable_out_dir_is_one_line_exit_2(go, tmp_path, capsys, target):
    """-o empty, under a file, or a dangling link: one line (was a traceback), nothing left behind."""
    (tmp_path / "afile").write_text("")
    os.symlink(str(tmp_path / "nowhere"), tmp_path / "dangling")
    with pytest.raises(SystemExit) as e:
        cli_main(["port", os.path.join(DATA, "counter"), "-o", str(tmp_path / target) if target else ""])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("fuzzfarm port: "), err
    assert sorted(os.listdir(tmp_path)) == ["afile", "dangling"]


def test_translated_unsynchronized_map_writes_are_go_s_fatal(go, tmp_path):
    out = port(tmp_path, os.path.join(DATA, "conform"))
    mod = load(out, "port")
    seen = set()
    for seed in range(20):
        r = gosim.run(mod.concurrent_map_writes, strategy=make("random", seed=seed), check_leaks=False)
        seen.add(r.failure.go_says if r.failure else "ok")
    assert "fatal error: concurrent map writes" in seen and seen <= {"ok", "fatal error: concurrent map writes"}, seen


def test_packages_of_the_module_become_a_module_each(go, tmp_path):
    """testdata/multi imports its module's package store: both are read (goast's deps), each is a
    Python module of the build, cited with Go's package path and the file under the package."""
    out = port(tmp_path, os.path.join(DATA, "multi"), "--test", "TestScenario")
    for variant in ("buggy", "fixed"):
        assert (out / "out_port" / variant / "__init__.py").is_file() and (out / "out_port" / variant / "store.py").is_file()
    store = (out / "out_port" / "buggy" / "store.py").read_text()
    assert '@gosim.go_func("example.com/multi/store.(*Counter).IncUnlocked", "store/store.go:38")' in store
    root = (out / "out_port" / "buggy" / "__init__.py").read_text()
    assert "from . import store as pkg_store  # Go package example.com/multi/store" in root
    h = load(out, "harness")
    found = [f for f in (h.execute(d, "buggy").failure for d in inputs()) if f is not None]
    # go test -race on testdata/multi: a data race on buggy, ok on fixed (tagged fixed)
    assert found and {f.kind for f in found} <= {"data race", "concurrent map writes"}, found[:1]
    inc = "example.com/multi/store.(*Counter).IncUnlocked (store/store.go:39)"
    # the failing goroutine's stack crosses the package boundary, each frame cited in its own package
    stack = [go_frame_text(s) for s in found[0].stack[:2]]
    assert stack == [inc, "example.com/multi.hit (hit_buggy.go:8)"], stack
    if found[0].kind == "data race":  # its crash state: the two racing accesses, both in IncUnlocked
        assert found[0].go_crash_state == [inc, inc], found[0].go_crash_state
    assert [d for d in inputs() if h.execute(d, "fixed").failure is not None] == []


def test_a_typed_nil_is_go_s_typed_nil_not_a_nil_interface(go, tmp_path):
    """A nil pointer, slice or map put in an interface: Go keeps a typed nil (not a nil
    interface; `x.(*T)` gives nil, true), where a bare None would be a nil interface. `go test`
    passes testdata/typednil; its translation puts rt.TypedNil at each conversion that may be
    nil and must end as `go test` ends (with a bare None the test's `x == nil` is true: it fails).
    More typed-nil cases (methods with a nil receiver, ==, type switches): testdata/named."""
    src = os.path.join(DATA, "typednil")
    p = run_go(["test", "-count=1", "."], cwd=src)
    assert p.returncode == 0, p.stdout + p.stderr
    out = port(tmp_path, src, "--test", "TestTypedNilIsNotNil")
    mod = load(out, "port")
    for seed in range(4):
        r = gosim.run(rt.test_main(mod.TestTypedNilIsNotNil, "TestTypedNilIsNotNil"), strategy=make("random", seed=seed),
                      check_leaks=False)
        assert r.failure is None, f"go test passes; the translation fails: {r.failure}"


def test_max_starvation_is_written_into_the_generated_harness(go, tmp_path, capsys):
    """`--max-starvation` is the generated harness's own bound (docs/PORT.md, docs/timing.md). A
    Go clock counting upstream's seconds in milliseconds (testdata/scaledclock: a 60 ms sync
    timeout Go meets on an idle machine: `go test -count=200` passed when it was written) fails under the
    default 0.1 s realism bound only by starving the worker 60 ms; under the bound scaled with
    the clock (0.1 ms) the harness runs under that bound and never fails. A bad value is one line,
    exit 2, nothing written."""
    src = os.path.join(DATA, "scaledclock")
    default = load(port(tmp_path / "a", src, "--test", "TestScenario"), "harness")
    runs = [default.execute(d, "port") for d in inputs()]
    failed = [ex for ex in runs if ex.report.failure is not None]
    assert failed and all("timed out waiting for the worker" in ex.report.failure.go_message for ex in failed)
    assert all(ex.report.starvation > 0.05 for ex in failed)  # each needs the worker starved 60 ms
    scaled = load(port(tmp_path / "b", src, "--test", "TestScenario", "--max-starvation", "0.0001"), "harness")
    for d in inputs():
        ex = scaled.execute(d, "port")
        assert ex.max_starvation_s == 0.0001 and ex.report.failure is None, (d.hex(), ex.report.failure)
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        cli_main(["port", src, "-o", str(tmp_path / "c"), "--test", "TestScenario", "--max-starvation", "soon"])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("fuzzfarm port: --max-starvation 'soon' is not"), err
    assert not (tmp_path / "c").exists()


def test_port_s_messages_say_one_thing_each(go, tmp_path, capsys):
    """A wrong ``--test`` is one line, however many builds (buggy, fixed) lack it, naming the tests
    the package has; an external test package (Go builds it) is one line whose only advice is
    the real one, whichever file sorts first; a port that worked names the harness module to fuzz."""
    src = os.path.join(DATA, "pool")

    def refused(source, *args):
        capsys.readouterr()
        with pytest.raises(SystemExit) as e:
            cli_main(["port", str(source), "-o", str(tmp_path / "no"), *args])
        err = capsys.readouterr().err.strip().splitlines()
        assert e.value.code == 2 and len(err) == 1 and not (tmp_path / "no").exists(), err
        return err[0]

    line = refused(src, "--test", "TestNope")
    assert line == "fuzzfarm port: no func TestNope(t *testing.T) in package pool; name a test the package has: TestScenario"
    for test_file in ("pool_test.go", "a_test.go"):  # after the package's files, and before them
        ext = tmp_path / f"ext-{test_file}"
        shutil.copytree(src, ext)
        text = (ext / "pool_test.go").read_text().replace("package pool\n", "package pool_test\n", 1)
        (ext / "pool_test.go").unlink()
        (ext / test_file).write_text(text.replace("&Pool{}", "&pool.Pool{}").replace(
            '"testing"', '"testing"\n\t"example.com/pool"'))
        line = refused(ext, "--test", "TestScenario")
        assert line == (f"fuzzfarm port: {test_file}:1: package pool_test (an external test package) is not supported; "
                        "make the file package pool (drop its import of the package and the pool. qualifiers) and run "
                        "again"), line
    capsys.readouterr()
    port(tmp_path / "ok", src, "--test", "TestScenario", "--name", "pool-gen")
    said = capsys.readouterr().out.strip()
    assert said.endswith("; then fuzz it: mkdir -p crashes && FUZZFARM_VARIANT=buggy python -m pool_gen_port.harness "
                         "-runs=20000 -seed=1 -artifact_prefix=crashes/"), said
    assert (tmp_path / "ok" / "out" / "pool_gen_port" / "harness.py").is_file()


def test_an_output_it_cannot_write_is_one_line_and_leaves_no_directory_behind(go, tmp_path, capsys):
    """-o under a file is one line naming the file; a port that fails after it made -o's parent
    directories removes them again (it left them behind: nothing half-written)."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.go").write_text("package p\n\nfunc F() int { return 1 }\n")
    (tmp_path / "afile").write_text("x")
    with pytest.raises(SystemExit) as e:
        cli_main(["port", str(src), "-o", str(tmp_path / "afile" / "sub" / "out")])
    err = capsys.readouterr().err.strip().splitlines()
    assert e.value.code == 2 and len(err) == 1, err
    assert f"{tmp_path / 'afile'} is a file, not a directory; choose another -o DIR" in err[0], err
    # the rename into place fails (a name too long for the file system) after new/deeper was made
    with pytest.raises(SystemExit) as e:
        cli_main(["port", str(src), "-o", str(tmp_path / "new" / "deeper" / ("o" * 300)), "--name", "p"])
    err = capsys.readouterr().err.strip().splitlines()
    assert e.value.code == 2 and len(err) == 1 and "choose another -o DIR" in err[0], err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile", "src"]
