"""Shared fixtures. Runtime/port tests are pure; farm tests get a real redis-server and real
Celery workers from ``tests/farm_fixtures.py``."""

import os
import tempfile

# Never the user's local farm (`fuzzfarm up`): commands given no Redis look for it under the
# data directory, so the tests get an empty one of their own.
os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="fuzzfarm-tests-data-")

pytest_plugins = ["farm_fixtures", "go_fixtures"]
