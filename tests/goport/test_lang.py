"""The Go language the translator handles beyond the basics (docs/PORT.md): each construct has Go
tests in ``testdata/lang/``, translated with no hand edit and run under gosim; every test must end
as ``go test -race`` ends it (the first panic line, ``race`` for a data race report, ``FAIL``, or
``ok``), over schedules from several strategies and seeds. The Go runs come from one ``-race``
test binary built once per module.
"""

from __future__ import annotations

import os
import re
import subprocess

import pytest

from fuzzfarm import gosim
from fuzzfarm.goport import rt
from fuzzfarm.gotool import run_go
from fuzzfarm.strategies import make

from tests.go_fixtures import go  # noqa: F401 - the fixture
from tests.goport.test_port import DATA, load, port

# recovers: recover() is refused in a package that closes, sends or uses a WaitGroup; ctxvalue: its
# key types would make lang's type assertions ambiguous (several int types in interfaces);
# pointers: pointers to non-struct memory and the sync/atomic functions on it; slicestruct: slices
# of struct values copy the structs (append, copy, literals), slices of pointers share them
# named: named non-struct types, arrays, struct values out of maps, typed nils; goerrs: errors.Join
# and runtime.NumGoroutine (goruntime); generics: generic functions (an instance per
# instantiation, one from another package of the module), struct-keyed maps, multi-value calls
# assigned into interfaces, net/http's Client/Transport and sort (issue 31's clusterbuilder);
# gonet: the net (TCP on the loopback) and io models (gonet.py)
PACKAGES = ("lang", "recovers", "ctxvalue", "pointers", "slicestruct", "named", "goerrs", "generics", "gonet")


def go_test_names(pkg):
    names = []
    for f in sorted(os.listdir(os.path.join(DATA, pkg))):
        if f.endswith("_test.go"):
            with open(os.path.join(DATA, pkg, f)) as fh:
                names += re.findall(r"^func (Test\w+)\(t \*testing\.T\)", fh.read(), re.M)
    return names


TESTS = [(pkg, name) for pkg in PACKAGES for name in go_test_names(pkg)]
_BUILT = {}


def built(pkg, tmp_path_factory):
    """(the translated package, its -race test binary), once per package."""
    if pkg not in _BUILT:
        d = tmp_path_factory.mktemp(pkg.replace("/", "-"))  # pkg: a directory under testdata (k8s/app)
        src = os.path.join(DATA, pkg)
        out = port(d, src, "--test", go_test_names(pkg)[0])
        binary = str(d / f"{os.path.basename(pkg)}.test")
        p = run_go(["test", "-c", "-race", "-o", binary, "."], cwd=src)
        assert p.returncode == 0, p.stderr
        _BUILT[pkg] = (load(out, "port"), binary)
    return _BUILT[pkg]


# Go's race detector has no false positives but may miss a race in one run (its shadow memory
# keeps a few accesses per word: lang.TestAtomicFlagTooEarly came out "ok" now and then on a loaded
# machine): where Go passed a test the port ends as a race, Go runs it again, in fresh processes,
# before "ok" is its answer (runs=GO_OK_RUNS; every other test runs once: some sleep for real)
GO_OK_RUNS = 4


def go_outcome(binary, name, runs=1):
    for _ in range(runs):
        said = _go_outcome_once(binary, name)
        if said != "ok":
            return said
    return "ok"


def _go_outcome_once(binary, name):
    p = subprocess.run([binary, "-test.run", f"^{name}$", "-test.count=1"], capture_output=True, text=True, timeout=120,
                       env={**os.environ, "GORACE": "halt_on_error=1"})
    out = p.stdout + p.stderr
    for line in out.splitlines():
        if line == "WARNING: DATA RACE":
            return "race"
        if line.startswith(("panic: ", "fatal error: ")):
            # an address Go prints (a pointer inside a printed value, a panic's composite value)
            # changes from run to run: the port prints rt.PTR_STANDIN there (docs/PORT.md)
            return re.sub(r"\b0x[0-9a-f]{6,}\b", rt.PTR_STANDIN, re.sub(r" \[recovered.*\]$", "", line))
    if "--- FAIL:" in out:
        return "FAIL"
    assert p.returncode == 0, out
    return "ok"


def port_outcome(report):
    f = report.failure
    if f is None:
        return "ok"
    if isinstance(f, gosim.DataRace):
        return "race"
    return "FAIL" if isinstance(f.cause, rt.TestFailed) else f.go_says


def port_outcomes(mod, name, seeds=8):
    seen = set()
    for seed in range(seeds):
        for strat in ("random", "pct"):
            r = gosim.run(rt.test_main(getattr(mod, name), name), strategy=make(strat, seed=seed), check_leaks=False)
            seen.add(port_outcome(r))
    return seen


@pytest.mark.parametrize("pkg, name", TESTS, ids=[f"{p}.{n}" for p, n in TESTS])
def test_translated_test_ends_as_go_test_race_does(go, tmp_path_factory, pkg, name):
    mod, binary = built(pkg, tmp_path_factory)
    want = go_outcome(binary, name)
    seen = port_outcomes(mod, name)
    if want == "ok" and "race" in seen:  # a race Go's detector may have missed in that one run
        want = go_outcome(binary, name, runs=GO_OK_RUNS)
    assert seen == {want}, (name, want)


def test_a_method_is_named_as_go_s_traceback_names_it(go, tmp_path_factory):
    """A panic inside a value-receiver method of a named array type: the port's Go crash state
    names the frames as Go's own traceback does (``named.ring.at``, not ``named.(ring).at``)."""
    mod, binary = built("named", tmp_path_factory)
    p = subprocess.run([binary, "-test.run", "^TestValueMethodPanics$", "-test.count=1"], capture_output=True, text=True,
                       timeout=120)
    go_frames = re.findall(r"^(example\.com/named\.\S+?)\(", p.stdout + p.stderr, re.M)
    r = gosim.run(rt.test_main(mod.TestValueMethodPanics, "TestValueMethodPanics"), strategy=make("random", seed=0),
                  check_leaks=False)
    port_frames = [re.sub(r" \(\S+:\d+\)$", "", f) for f in r.failure.go_crash_state]
    assert go_frames[:3] == port_frames[:3] == ["example.com/named.ring.at", "example.com/named.ValueMethodPanics",
                                                "example.com/named.TestValueMethodPanics"], (go_frames, port_frames)


def test_a_nested_closure_is_named_as_go_s_traceback_names_it(go, tmp_path_factory):
    """A closure inside a closure: Go numbers it within its enclosing closure (``F.func2.2``,
    cmd/compile's closureName), which the port had numbered flat (``F.func4``); hc11's leaked
    poller is ``poller.func1.1`` in Go's goroutine dump."""
    mod, binary = built("named", tmp_path_factory)
    p = subprocess.run([binary, "-test.run", "^TestNestedClosures$", "-test.count=1"], capture_output=True, text=True,
                       timeout=120)
    go_frames = re.findall(r"^(example\.com/named\.\S+?)\(", p.stdout + p.stderr, re.M)
    r = gosim.run(rt.test_main(mod.TestNestedClosures, "TestNestedClosures"), strategy=make("random", seed=0),
                  check_leaks=False)
    port_frames = [re.sub(r" \(\S+:\d+\)$", "", f) for f in r.failure.go_crash_state]
    assert go_frames[:2] == port_frames[:2] == ["example.com/named.NestedClosures.func2.2",
                                                "example.com/named.NestedClosures.func2"], (go_frames, port_frames)


def test_a_fatalf_message_is_the_text_go_prints(go, tmp_path_factory):
    """t.Fatalf of a map of structs, a pointer to a struct (%+v) and a slice of nil pointers: the
    port's failure carries the message Go's test prints (it carried the Python objects, with an
    address that changed from run to run)."""
    mod, binary = built("lang", tmp_path_factory)
    p = subprocess.run([binary, "-test.run", "^TestFatalfMessage$", "-test.count=1"], capture_output=True, text=True,
                       timeout=120)
    go_msg = re.search(r"^\s+lang_test\.go:\d+: (.*)$", p.stdout, re.M).group(1)
    assert go_msg == "got map[1:{1 a} 2:{2 b}] want &{n:2 s:b}, [<nil>]", go_msg
    r = gosim.run(rt.test_main(mod.TestFatalfMessage, "TestFatalfMessage"), strategy=make("random", seed=0),
                  check_leaks=False)
    assert str(r.failure.cause) == f"--- FAIL: TestFatalfMessage: {go_msg}", r.failure.cause
