"""The Go twins of the examples (``gotwins/examples/``, issue 28): one stdlib-only package per
case, buggy and fixed selected by the ``fixed`` build tag. Here: every case has its twin, laid out
as agreed (a ``TestScenario``, a buggy and a fixed file, stdlib imports, citations in the
``// upstream:`` form). Real Go runs them in tests/checkport: ``test_twins.py`` vets every twin
in both variants and runs every fixed twin's scenario 30 times under ``go test -race`` (the
whole ``gotwins/`` module, examples included), and ``test_check_port.py`` checks every citation
of the examples harness against these twins (gotwins/TWINS.toml). How often the buggy twins fail
is a measurement, ``benchmarks/go_twin_runs.py``, not a test."""

from __future__ import annotations

import os
import re

from fuzzfarm import examples

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "gotwins")
EXAMPLES = os.path.join(ROOT, "examples")
# // upstream: owner/repo path/file.go:FIRST-LAST @<40-hex commit>, or the "not found" form
UPSTREAM = re.compile(r"^// upstream: (?:[\w.-]+/[\w.-]+ [\w./-]+\.go:(\d+)-(\d+) @[0-9a-f]{40}"
                      r"|not found in the stored corpus; written from .+)$")


def _cases() -> list[str]:
    return [name.split("_", 1)[0] for name in examples.CASE_NAMES]


def _go_files(case: str) -> dict[str, str]:
    d = os.path.join(EXAMPLES, case)
    return {f: open(os.path.join(d, f), encoding="utf-8").read() for f in sorted(os.listdir(d)) if f.endswith(".go")}


def test_every_example_has_a_twin_in_the_agreed_layout():
    with open(os.path.join(ROOT, "go.mod"), encoding="utf-8") as f:
        assert f.read().split() == ["module", "fuzzfarm.dev/gotwins", "go", "1.27"]
    assert sorted(os.listdir(EXAMPLES)) == sorted(_cases())
    for case in _cases():
        files = _go_files(case)
        assert re.search(r"^func TestScenario\(t \*testing\.T\) \{$", files.get("scenario_test.go", ""), re.M), case
        tags = {f: re.match(r"//go:build (.*)\n", src) for f, src in files.items()}
        assert {m.group(1) for m in tags.values() if m} == {"fixed", "!fixed"}, (case, "one buggy and one fixed file at least")
        for f, src in files.items():
            assert "import" not in src or not re.search(r'"[\w.-]+\.[a-z]+/', src), (case, f, "stdlib only")
            for line in src.splitlines():
                if line.startswith("// upstream:"):
                    m = UPSTREAM.match(line)
                    assert m, (case, f, line)
                    assert m.group(1) is None or int(m.group(1)) <= int(m.group(2)), (case, f, line)
        cited = sum(line.startswith("// upstream:") for src in files.values() for line in src.splitlines())
        assert cited >= 2, (case, "the racy functions name their upstream source")
