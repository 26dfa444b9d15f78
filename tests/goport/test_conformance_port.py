"""The conformance programs, translated instead of hand-written (issue 31's acceptance).

Every case of the conformance suite (``tests/conformance/go/*_cases.go``) goes through
``fuzzfarm port``'s translator, all in one ``goast.go`` run: the case files as they are, with their
``register`` lines left out and ``result`` declared by a stand-in (the suite's ``main.go``
dispatches by reflection, which is not a case). A translated case is explored exactly as its
hand-written twin is (``conform.explore``: every schedule within the case's preemption bound),
and must reach exactly the outcomes Go shows, the ones ``tests/conformance`` checks against real
Go on every CI run. A case the translator refuses is listed below by name with the construct
that stopped it: the test asserts that exact set, so a construct that regresses or starts
translating changes it on purpose only.
"""

from __future__ import annotations

import dataclasses
import glob
import os
import re
import sys
import types

import pytest

from fuzzfarm.goport import rt
from fuzzfarm.goport.translate import read_go, snake, translate_each

from tests.go_fixtures import go  # noqa: F401 - the fixture

CONFORMANCE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "conformance")
sys.path.insert(0, CONFORMANCE)
import conform  # noqa: E402
import conform_more  # noqa: E402,F401  (registers the cases)
import conform_plain  # noqa: E402,F401
import conform_race  # noqa: E402,F401
import conform_timers  # noqa: E402,F401

sys.path.remove(CONFORMANCE)

# Go case -> what the translator says stops it (a piece of its error line). Shrinks as the
# translator learns constructs; a case leaving or joining it must be edited here on purpose.
REFUSED: dict[str, str] = {}

RESULT_GO = """package main

import "fmt"

// result stands in for the conformance suite's own (main.go): the test replaces it by a
// recorder of the formatted text, what the suite compares.
func result(format string, args ...any) { _ = fmt.Sprintf(format, args...) }
"""

_REGISTER = re.compile(r"^var _ = register\(.*?\)\n", re.S | re.M)


@pytest.fixture(scope="module")
def translated(go, tmp_path_factory):
    """(module, {Go case: error lines}) of the conformance cases, translated in one go."""
    d = tmp_path_factory.mktemp("conformance-port")
    for path in sorted(glob.glob(os.path.join(conform.GO_DIR, "*_cases.go"))):
        with open(path) as f:
            src = f.read()
        (d / os.path.basename(path)).write_text(_REGISTER.sub("", src))
    (d / "result.go").write_text(RESULT_GO)
    src, refused = translate_each(read_go([str(d)]))
    mod = types.ModuleType("conformance_port")
    exec(compile(src, "conformance_port.py", "exec"), mod.__dict__)
    return mod, refused


def runner(mod, go_name):
    """The translated case as ``conform.explore`` runs a twin: () -> the last result, or None."""
    fn = getattr(mod, snake(go_name))

    def run():
        seen = []
        mod.result = lambda fmt, *args: seen.append(rt.sprintf(fmt, *args))
        fn()
        return seen[-1] if seen else None
    return run


def go_names():
    """Every case's Go name (its function in tests/conformance/go), by the suite's key."""
    names = {}
    for path in glob.glob(os.path.join(conform.GO_DIR, "*_cases.go")):
        with open(path) as f:
            for m in re.finditer(r"^func ([A-Z]\w*)\(\)", f.read(), re.M):
                names[conform.key(m.group(1))] = m.group(1)
    return names


NAMES = go_names()
TRANSLATED = sorted(NAMES[k] for k in conform.CASES if NAMES.get(k) not in REFUSED)


def test_every_case_is_a_go_function():
    assert sorted(set(conform.CASES) - set(NAMES)) == []
    assert sorted(set(REFUSED) - set(NAMES.values())) == [], "REFUSED names a case that is gone"


def test_the_refused_cases_are_exactly_the_listed_ones_for_the_listed_reason(translated):
    _, refused = translated
    cases = {NAMES[k] for k in conform.CASES}
    got = {name: lines for name, lines in refused.items() if name in cases}
    assert sorted(set(got) - set(REFUSED)) == [], {n: got[n] for n in sorted(set(got) - set(REFUSED))}
    assert sorted(set(REFUSED) - set(got)) == [], "translated now: remove from REFUSED"
    for name, why in REFUSED.items():
        assert any(why in ln for ln in got[name]), (name, why, got[name])
        assert all(re.fullmatch(r"\w+\.go:\d+: .+: not supported; .+", ln) for ln in got[name]), got[name]


@pytest.mark.parametrize("go_name", TRANSLATED)
def test_translated_case_reaches_exactly_what_go_shows(translated, go_name):
    mod, refused = translated
    assert go_name not in refused, refused.get(go_name)
    c = conform.CASES[conform.key(go_name)]
    c = dataclasses.replace(c, fn=runner(mod, go_name), differs=None)
    # max_runs: a translated case has more scheduling points than its twin (every captured
    # variable a closure assigns is a race-checked gosim.Var): CondBroadcastWakesAll takes 7,760
    found, runs, complete = conform.explore(c, max_runs=20000)
    assert complete, f"{go_name}: the search did not finish in {runs} runs"
    assert set(found) == set(c.expect), f"{go_name}: Go shows {sorted(c.expect)}, the port reached {sorted(found)} in {runs} schedules"
