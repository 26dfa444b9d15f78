"""The `strings` model of `fuzzfarm port` (fuzzfarm/goport/gostrings.py, gocase.py; docs/PORT.md#models).

testdata/gostrings is a Go package whose tests check the model's functions on the cases where a
Python spelling would differ from Go (Split of "", an empty separator, byte offsets, Go's space
set, simple case mapping, Replace with an empty old, nil vs empty slices) and use a
strings.Builder from two goroutines (a race, or none under a mutex) and through a copy (Go's
copyCheck panic). Real Go decides: each translated test must end as `go test -race` ends it, and
the tests whose checks are the expected results must pass in Go (so the expectations are Go's).
gocase's case tables are checked against real Go rune by rune.
"""

from __future__ import annotations

import os

import pytest

from fuzzfarm.goport import gocase
from fuzzfarm.gotool import run_go

from tests.go_fixtures import go  # noqa: F401 - the fixture
from tests.goport.test_lang import built, go_outcome, go_test_names, port_outcomes
from tests.goport.test_port import DATA

NAMES = go_test_names("gostrings")
# the tests whose own checks are the expected results: they must pass under Go
CHECKS = {"TestSplit", "TestSearchAndTrim", "TestCase", "TestBuilder"}


@pytest.mark.parametrize("name", NAMES)
def test_translated_strings_test_ends_as_go_test_race_does(go, tmp_path_factory, name):
    mod, binary = built("gostrings", tmp_path_factory)
    want = go_outcome(binary, name)
    if name in CHECKS:
        assert want == "ok", (name, want)
    assert port_outcomes(mod, name, seeds=4) == {want}, (name, want)


def go_case_dump() -> dict[int, tuple[int, int, int]]:
    """rune -> (unicode.ToUpper, ToLower, SimpleFold) as real Go gives them, for every rune one maps."""
    p = run_go(["run", "."], cwd=os.path.join(DATA, "casedump"))
    assert p.returncode == 0, p.stderr
    out = {}
    for ln in p.stdout.splitlines():
        r, u, lo, f = map(int, ln.split())
        out[r] = (u, lo, f)
    return out


def go_tables(dump) -> tuple[dict, dict, dict]:
    """gocase's UPPER, LOWER, FOLD as they must be for this Go and this Python."""
    def key(r):
        orbit, x = [r], dump.get(r, (r, r, r))[2]
        while x != r:
            orbit.append(x)
            x = dump.get(x, (x, x, x))[2]
        return min(orbit)
    up, low, fold = {}, {}, {}
    # a rune neither Go nor Python maps is its own upper, lower and fold on both sides
    candidates = sorted(set(dump) | {r for r in range(0x110000) if not 0xD800 <= r <= 0xDFFF
                                     and (chr(r).upper() != chr(r) or chr(r).lower() != chr(r))})
    for r in candidates:
        c = chr(r)
        u, lo, _ = dump.get(r, (r, r, r))
        if ord(gocase._one(c.upper(), c)) != u:
            up[r] = u
        if ord(gocase._one(c.lower(), c)) != lo:
            low[r] = lo
        k = key(r)
        if gocase.FOLD.get(r) is None and ord(gocase.fold(c)) != k or gocase.FOLD.get(r) is not None:
            saved = gocase.FOLD.pop(r, None)
            if ord(gocase.fold(c)) != k:
                fold[r] = k
            if saved is not None:
                gocase.FOLD[r] = saved
    return up, low, fold


def test_case_mapping_is_go_s_for_every_rune(go):
    """Every rune: gocase.to_upper / to_lower as Go's unicode.ToUpper / ToLower, and fold equal for
    exactly the runes of one SimpleFold orbit (EqualFold's rule)."""
    dump = go_case_dump()
    assert gocase.UPPER, gocase.LOWER
    assert go_tables(dump) == (gocase.UPPER, gocase.LOWER, gocase.FOLD)
    for r, (u, lo, _) in dump.items():
        assert (ord(gocase.to_upper(chr(r))), ord(gocase.to_lower(chr(r)))) == (u, lo), hex(r)


if __name__ == "__main__":  # print gocase's tables for this Go and Python
    for name, table in zip(("UPPER", "LOWER", "FOLD"), go_tables(go_case_dump())):
        print(name, "=", {hex(k): hex(v) for k, v in sorted(table.items())})


def test_a_function_the_model_does_not_list_is_an_error_line(go, tmp_path, capsys):
    """strings.Title and log.Fatalf have no model entry: one line each naming them, exit 2, not a stub."""
    from fuzzfarm.cli import main as cli_main
    src = tmp_path / "p"
    src.mkdir()
    (src / "a.go").write_text('package p\n\nimport (\n\t"log"\n\t"strings"\n)\n\n'
                              'func F(s string) string {\n\tlog.Default().Fatalf("x")\n\treturn strings.Title(s)\n}\n')
    with pytest.raises(SystemExit) as e:
        cli_main(["port", str(src), "-o", str(tmp_path / "out")])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "a.go:9: method log.Logger.Fatalf has no gosim model: not supported; stub it by hand" in err, err
    assert "a.go:10: strings.Title has no gosim model: not supported; stub it by hand" in err, err
    assert not (tmp_path / "out").exists()
