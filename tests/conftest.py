"""Shared fixtures. Runtime/port tests are pure; farm tests get a real redis-server and real
Celery workers from ``tests/farm_fixtures.py``.

scripts/test runs the suite in several pytest processes (pytest-xdist, one file per process at a
time). Each process has its own of everything a test may share: its own redis-server and farms
(free ports, data under its own temporary directory), its own data directory for ``fuzzfarm up``
and its own TMPDIR, so the processes a test finds by scanning /proc (fuzz children of a farm, see
tests/faults/faultlib.py) are the ones this process started, never another process's or another
checkout's suite on the same machine.
"""

import os
import tempfile

import pytest

# Never the user's local farm (`fuzzfarm up`): commands given no Redis look for it under the
# data directory, so the tests get an empty one of their own.
os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="fuzzfarm-tests-data-")

# The tables' width is the terminal's (COLUMNS) or, piped, whole rows: a COLUMNS inherited from
# whatever started pytest (pytest-xdist's worker processes have COLUMNS=80) would cut the tables
# the tests read. Tests that want a width set it themselves.
os.environ.pop("COLUMNS", None)
os.environ.pop("LINES", None)

pytest_plugins = ["farm_fixtures", "go_fixtures"]


@pytest.fixture(scope="session", autouse=True)
def private_tmpdir(tmp_path_factory):
    """TMPDIR for this pytest process and everything it starts (Celery workers, their fuzz
    children, whose ``-artifact_prefix`` lies under it): the process's own pytest base
    directory, unique per process and per run. Autouse, so it is set before any farm starts."""
    base = str(tmp_path_factory.getbasetemp())
    before = os.environ.get("TMPDIR")
    os.environ["TMPDIR"] = base
    tempfile.tempdir = None  # gettempdir() reads TMPDIR again
    yield base
    if before is None:
        os.environ.pop("TMPDIR", None)
    else:
        os.environ["TMPDIR"] = before
    tempfile.tempdir = None


# The suite's long files first (end-to-end farms, fault drills, browsers, Go builds), so that in a
# parallel run (scripts/test: --dist loadfile --no-loadscope-reorder) no process starts a
# several-minute file while the others have run out of work. Order only: every file still runs
# whole, and no test depends on another's order (each farm test flushes or owns its Redis).
_FIRST = ("e2e/test_demo_e2e.py", "e2e/", "faults/", "security/", "web/", "docs/", "farm/", "checkport/",
          "engine/", "collector/", "gotwins/", "conformance/")


def _rank(item) -> int:
    path = item.nodeid.split("::", 1)[0]
    for i, prefix in enumerate(_FIRST):
        if path.startswith("tests/" + prefix):
            return i
    return len(_FIRST)


def pytest_collection_modifyitems(config, items):
    items.sort(key=_rank)  # stable: within a rank, collection order
