"""``python -m benchmarks``: the whole suite (see ``benchmarks/run_all.py``)."""

from benchmarks.run_all import main

raise SystemExit(main())
