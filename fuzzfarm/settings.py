"""Numeric settings from the environment (``FUZZFARM_*``): a bad value is one line and exit 2.

Every module reads its settings when it is imported: the CLI on the command that needs them,
a worker at its start (Celery imports the task modules before it takes a message). A value that
is not a finite number in its range would otherwise surface as a traceback on every command, or
worse, as a job failing after it ran (``int('abc')`` in the middle of a slice). Importing this
module imports nothing of fuzzfarm.
"""

from __future__ import annotations

import math
import os
import sys


def number(name: str, default: float, *, integer: bool = False, minimum: float = 0.0,
           above: bool = False) -> float:
    """``$name`` as a number (an ``int`` when ``integer``), else ``default`` when unset or empty.
    It must be finite and ``>= minimum`` (``> minimum`` when ``above``); otherwise one line on
    stderr says what is wrong and what to do, and the process exits 2 (SystemExit)."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    value: float | None
    try:
        value = int(raw.strip()) if integer else float(raw)
    except ValueError:
        value = None
    if value is None or not math.isfinite(value) or (value <= minimum if above else value < minimum):
        what = "a whole number" if integer else "a number"
        bound = f"> {minimum:g}" if above else f">= {minimum:g}"
        sys.stderr.write(f"fuzzfarm: {name}={raw!r} is not {what} {bound}; set it to one, or unset it for "
                         f"the default {default:g}\n")
        raise SystemExit(2)
    return value
