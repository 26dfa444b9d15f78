"""The triage budgets, read once from the environment: the farm's triage (farm/triage.py) and a
local re-triage (retriage.py) spend the same ones, so a reproducer re-triaged here is held to
what the farm would have done."""

from __future__ import annotations

from fuzzfarm import settings

MINIMIZE_BUDGET_S = settings.number("FUZZFARM_MINIMIZE_BUDGET_S", 60.0, above=True)
VERIFY_RUNS = settings.number("FUZZFARM_VERIFY_RUNS", 10, integer=True, above=True)
# Fix verification budget (see fixverify.py): schedules of the reproducer's scenario on the fixed
# variant, random and PCT; replays of a flaky reproducer; the whole check's time.
FIX_RANDOM_RUNS = settings.number("FUZZFARM_FIX_RANDOM_RUNS", 100, integer=True)
FIX_PCT_RUNS = settings.number("FUZZFARM_FIX_PCT_RUNS", 100, integer=True)
FIX_FLAKY_REPLAYS = settings.number("FUZZFARM_FIX_FLAKY_REPLAYS", 20, integer=True)
FIX_BUDGET_S = settings.number("FUZZFARM_FIX_BUDGET_S", 60.0, above=True)
