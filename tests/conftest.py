"""Shared fixtures. Runtime/port tests are pure; farm tests get a real redis-server and real
Celery workers from ``tests/farm_fixtures.py``."""

pytest_plugins = ["farm_fixtures"]
