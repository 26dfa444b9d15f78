"""fuzzfarm's benchmark suite (issue 7): commands, not timed tests.

Each module runs alone (``python -m benchmarks.<name> [--quick] [--json]``) and
``python -m benchmarks`` / ``python benchmarks/run_all.py`` runs them all, prints one table and
writes ``docs/BENCHMARKS.md``:

=================  ===========================================================================
module             what it measures
=================  ===========================================================================
``time_to_bug``    runs and seconds to the first crash of each seed bug, per harness x variant
                   x strategy (bytes under real atheris, random, pct); fixed variants: runs
                   without a failure and PCT's confidence figure
``stress``         the same code on real OS threads (``harness.on_threads``) for the same wall
                   time: runs, manifestations, and the time-to-bug ratio fuzzfarm / stress
``throughput``     scheduling decisions/s and exec/s per harness under atheris, next to the
                   runtime microbench (``benchmarks/runtime_bench.py``, another engineer's)
``farm_scaling``   one campaign on 1 and 2 worker processes vs bare atheris for the same time:
                   execs ratio and CPU share outside the fuzz target; Redis traffic of it
``redis_traffic``  Redis commands/s per worker (``INFO commandstats``) and workers per Redis
``end_to_end``     submit -> first downloadable, verified reproducer per seed bug
``minimization``   input size and preemptions before -> after, and time, per bucket
``startup``        launch to exit of fresh fuzz child processes (walk, atheris) and where their
                   import time goes (``-X importtime``)
=================  ===========================================================================

Absolute times are context only (a shared 2-core machine, docs/TRAPS.md#g24); comparisons are
ratios measured in the same run. No figure is hard-coded: every number printed is measured.
"""
