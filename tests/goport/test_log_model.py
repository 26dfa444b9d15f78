"""The `log` model of `fuzzfarm port` (fuzzfarm/goport/golog.py; docs/PORT.md#models).

Go's log calls write holding the logger's mutex, so goroutines that communicate only through the
order of their log calls have no data race under `go test -race` (testdata/golog). A model
without that mutex made the port report a race Go does not: a failure gosim invented. Each
translated test must end as `go test -race` ends it, over schedules of two strategies; the lines
never reach the product's stdout.
"""

from __future__ import annotations

import pytest

from fuzzfarm import gosim
from fuzzfarm.goport import golog, rt
from fuzzfarm.strategies import make

from tests.go_fixtures import go  # noqa: F401 - the fixture
from tests.goport.test_lang import built, go_outcome, go_test_names, port_outcomes

NAMES = go_test_names("golog")
WANT = {"TestLogOrdersTheHandOff": "ok", "TestStdLogger": "ok", "TestNoLogNoOrder": "race", "TestReadBeforeTheWriteRaces": "race"}


@pytest.mark.parametrize("name", NAMES)
def test_translated_log_test_ends_as_go_test_race_does(go, tmp_path_factory, name):
    mod, binary = built("golog", tmp_path_factory)
    want = go_outcome(binary, name)
    assert want == WANT[name], (name, want)  # what the package's comment says Go does
    assert port_outcomes(mod, name) == {want}, (name, want)


def test_log_lines_stay_on_the_logger_not_stdout(go, tmp_path_factory, capsys):
    mod, _ = built("golog", tmp_path_factory)
    capsys.readouterr()  # what `fuzzfarm port` said, when this test is the first to build golog
    seen = []

    def main():
        gosim.sleep(3661.25)  # the header's time is the virtual clock's
        rt.test_main(mod.TestStdLogger, "TestStdLogger")()
        seen.extend(golog.std().lines)
    r = gosim.run(main, strategy=make("random", seed=1), check_leaks=False)
    assert r.failure is None, r.failure
    assert seen == ["1970/01/01 01:01:01 a wrote 2\n", "1970/01/01 01:01:01 b reads\n", "1970/01/01 01:01:01 done\n"], seen
    assert capsys.readouterr().out == ""
