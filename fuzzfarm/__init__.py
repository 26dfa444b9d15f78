"""fuzzfarm: find Go concurrency bugs on purpose, ship a minimized reproducer, prove the fix.

Importing the package imports nothing else: harnesses must be able to import the runtime and
the ports for the first time inside ``atheris.instrument_imports()`` (docs/TRAPS.md#g8).
"""

__version__ = "0.1.0"
