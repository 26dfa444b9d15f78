"""Test-only harnesses (tests/faults/site). Registered through the ``fuzzfarm.harnesses`` entry
points of a dist-info directory that sits next to this package, so they exist for a process only
when ``tests/faults/site`` is on its PYTHONPATH: the test workers, never a product install."""
