"""gofuncs (Go's own parser, shipped with fuzzfarm.portcheck) names functions as Go's runtime
names them, which is how ports name goroutine bodies (``Outer.func1``, ``Outer.func1.2``):
checked against ``runtime.FuncForPC`` of a program built with real Go."""

from __future__ import annotations

import re

from fuzzfarm.gotool import run_go
from fuzzfarm.portcheck.gosource import read, read_variants

PROGRAM = '''\
package main

import (
	"fmt"
	"runtime"
	"sync"
)

func name() string {
	pc, _, _, _ := runtime.Caller(1)
	return runtime.FuncForPC(pc).Name()
}

type T struct{}

type G[K comparable] struct{}

func (t *T) M() {
	fmt.Println(name())
	func() {
		fmt.Println(name())
		func() { fmt.Println(name()) }()
		func() { fmt.Println(name()) }()
	}()
	f := func() { fmt.Println(name()) }
	f()
}

func (g G[K]) N() {
	fmt.Println(name())
	defer func() { fmt.Println(name()) }()
}

// upstream: example/repo pkg/util/wait/wait.go:69-75 @v1
func Start() {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		fmt.Println(name())
	}()
	wg.Wait()
}

func main() {
	fmt.Println(name())
	(&T{}).M()
	G[int]{}.N()
	Start()
}
'''


def _as_cited(runtime_name: str) -> str:
    """``main.(*T).M.func1`` -> ``main.T.M.func1``; ``main.G[...].N`` -> ``main.G.N``."""
    return re.sub(r"\[[^\]]*\]", "", re.sub(r"\(\*(\w+)\)", r"\1", runtime_name))


def test_function_names_and_lines_are_gos(go, tmp_path):
    (tmp_path / "go.mod").write_text("module example\n\ngo 1.27\n")
    program = PROGRAM.replace("// upstream: example/repo pkg/util/wait/wait.go:69-75 @v1\n", "")
    (tmp_path / "main.go").write_text(program)  # no upstream comment: a checkout, every function counts
    p = run_go(["run", "-gcflags=all=-l", "."], cwd=str(tmp_path))
    assert p.returncode == 0, p.stderr
    ran = {_as_cited(n) for n in p.stdout.split()}
    assert len(ran) == 9, ran
    fns = {f.name: f for f in read(str(tmp_path)).functions}
    assert ran <= set(fns), sorted(ran - set(fns))
    lines = program.splitlines()
    assert lines[fns["main.T.M"].first - 1].startswith("func (t *T) M()")
    assert lines[fns["main.T.M.func1.2"].first - 1].strip().startswith("func() { fmt.Println(name()) }()")
    assert fns["main.T.M.func1.2"].first == fns["main.T.M.func1.2"].last


def test_a_twin_function_stands_for_its_upstream_lines(go, tmp_path):
    """With an ``// upstream:`` comment anywhere the tree is a twin: only such functions count,
    each at upstream's file and lines, in the package of upstream's directory; a literal without
    a comment of its own stands for its declaration's lines."""
    (tmp_path / "go.mod").write_text("module example\n\ngo 1.27\n")
    (tmp_path / "main.go").write_text(PROGRAM)
    src = read_variants(str(tmp_path))
    assert src.twin
    got = {(f.name, f.path, f.first, f.last) for f in src.functions}
    assert got == {("wait.Start", "pkg/util/wait/wait.go", 69, 75), ("wait.Start.func1", "pkg/util/wait/wait.go", 69, 75)}
    start = next(f for f in src.functions if f.name == "wait.Start")
    assert start.named("wait.Start") and start.named("Start") and not start.named("Start.func1")
    assert not start.named("other.Start")


INIT_A = '''\
package main

import (
	"fmt"
	"runtime"
)

func name() string {
	pc, _, _, _ := runtime.Caller(1)
	return runtime.FuncForPC(pc).Name()
}

func init() {
	fmt.Println(name())
	func() { fmt.Println(name()) }()
}

func main() {}
'''
INIT_B = '''\
package main

import "fmt"

func init() {
	fmt.Println(name())
	go func() {}()
	func() { fmt.Println(name()) }()
}
'''


def test_package_inits_are_named_as_the_runtime_numbers_them(go, tmp_path):
    """A package's init functions are ``init.0``, ``init.1``, ... in file order, their literals
    ``init.0.func1`` (controller-runtime's log.go fallback goroutine, which DR-03 cites)."""
    (tmp_path / "go.mod").write_text("module example\n\ngo 1.27\n")
    (tmp_path / "a.go").write_text(INIT_A)
    (tmp_path / "b.go").write_text(INIT_B)
    p = run_go(["run", "-gcflags=all=-l", "."], cwd=str(tmp_path))
    assert p.returncode == 0, p.stderr
    ran = set(p.stdout.split())
    assert ran == {"main.init.0", "main.init.0.func1", "main.init.1", "main.init.1.func2"}, ran
    names = {f.name for f in read(str(tmp_path)).functions}
    assert ran <= names, sorted(ran - names)
