"""Toy harnesses of the exhaustive-search comparison (``docs/EXPLORE.md``): late_cancel and
shared_map. Not registered as entry points; load them as ``Target(NAME, "benchmarks.toys.X")``."""
