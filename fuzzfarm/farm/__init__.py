"""The farm: the Celery app, its tasks and the embedded launcher.

    celery -A fuzzfarm.farm worker -Q fuzz      # a fuzzing machine of the fleet
    celery -A fuzzfarm.farm worker -Q collect   # a collector

The Redis URL comes from ``$FUZZFARM_REDIS_URL`` (see :mod:`fuzzfarm.farm.redis_url`);
:func:`configure` points an already imported app at another Redis (the CLI's ``--redis``).

The Celery app (:mod:`.celery_app`) is built on first access to ``app`` / ``configure``, not
when the package is imported: the store and the CLI's Redis-URL checks import
``fuzzfarm.farm.redis_url`` / ``.config`` without pulling Celery in.
"""

from __future__ import annotations

import importlib

_LAZY = ("app", "configure", "URL_ERROR")


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(".celery_app", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["app", "configure"]
