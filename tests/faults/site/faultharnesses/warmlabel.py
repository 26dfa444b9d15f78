#!/usr/bin/env python3
"""ff-warmlabel (test only): two bugs whose failure sites a warm process mixes up. An input
starting with ``A`` panics (RuntimeError) in ``_fill_cache_panic`` and leaves a cache behind in
its process; an input starting with ``B`` panics (KeyError) in ``_cold_lookup_panic`` in a fresh
process, but in a process that ran an ``A`` input before it takes the cache's path and panics in
``_fill_cache_panic`` like bug A. So a fuzz child that ran an A input signs every later B input
with bug A's signature: the engine's word lies, and only a fresh-process replay tells the two
bugs apart (farm/triage.py, the engine signature's once-per-bucket re-check). Variants:
``buggy``; ``fixed``, which never fails.
"""

import atheris  # noqa: F401

from fuzzfarm.harness import atheris_main, execute_scenario, variant_from_env

NAME = "ff-warmlabel"
VARIANTS = ("buggy", "fixed")
DESCRIPTION = "test only: a warm process fails bug B at bug A's site"
_CACHE: dict = {}  # what an A input leaves behind in its process


def _fill_cache_panic():
    raise RuntimeError("ff-warmlabel: cache entry torn")


def _cold_lookup_panic():
    raise KeyError("ff-warmlabel: no cache entry")


def execute(data: bytes, variant: str, *, trace: bool = False, log_schedule: bool = False):
    from fuzzfarm import gosim

    site = None
    if variant == "buggy" and data[:1] == b"A":
        _CACHE["filled"] = True
        site = _fill_cache_panic
    elif variant == "buggy" and data[:1] == b"B":
        site = _fill_cache_panic if _CACHE else _cold_lookup_panic

    def main():
        wg = gosim.WaitGroup(name="wg")
        wg.add(1)

        def worker():
            if site is not None:
                site()
            wg.done()

        gosim.go(worker)
        wg.wait()

    return execute_scenario(main, data, min(1, len(data)), "warmlabel", trace=trace, log_schedule=log_schedule)


def TestOneInput(data: bytes) -> None:
    execute(data, variant_from_env(VARIANTS))


if __name__ == "__main__":
    atheris_main(TestOneInput, __file__)
