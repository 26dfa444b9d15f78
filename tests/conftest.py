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
