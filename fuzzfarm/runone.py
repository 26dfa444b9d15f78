"""``python -m fuzzfarm.runone``: the name users type and reproducers record (``repro.json``'s
``replay_standalone``, docs/HARNESSES.md); the module is :mod:`fuzzfarm.harness.runone`."""

from fuzzfarm.harness.runone import HARNESS_ERROR, main, outcome, outcome_of_module  # noqa: F401

if __name__ == "__main__":
    raise SystemExit(main())
