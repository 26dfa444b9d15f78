"""``fuzzfarm explore``: bounded exhaustive search of one scenario, here and now.

    fuzzfarm explore examples --variant fixed --preemption-bound 2
    FUZZFARM_EXAMPLE=hc03 fuzzfarm explore examples --variant buggy -o hc03.bin

Exit 1 with a reproducer file when a schedule fails, 0 when every schedule within the bound
was explored clean (proven, for this scenario and bound), 3 when a budget ran out first,
2 for bad usage. The search itself is ``fuzzfarm.engine.explore`` (``docs/EXPLORE.md``).
"""

from __future__ import annotations

from typing import Optional

import typer

EXIT_FAILURE, EXIT_PROVEN, EXIT_BUDGET = 1, 0, 3


def register(app) -> None:
    from fuzzfarm.cli._app import CLIError, _print_json, err, errors_to_exit, out

    @app.command()
    @errors_to_exit
    def explore(harness: str = typer.Argument(..., help="Registered harness name (see `fuzzfarm harnesses`)."),
                variant: Optional[str] = typer.Option(None, "--variant", help="Harness variant (default: its first)."),
                input_file: Optional[str] = typer.Option(None, "--input", help="Input whose scenario to explore "
                                                         "(default: the empty input's)."),
                bound: int = typer.Option(2, "--preemption-bound", "-k", help="Most preemptions per schedule."),
                max_schedules: int = typer.Option(0, "--max-schedules", help="Stop after this many runs (0: none)."),
                max_time: float = typer.Option(0, "--max-time", help="Stop after this many seconds (0: none)."),
                no_reduction: bool = typer.Option(False, "--no-reduction",
                                                  help="Explore every schedule, without partial-order reduction."),
                output: Optional[str] = typer.Option(None, "--output", "-o", help="Where to write a counterexample "
                                                     "(default: dfs-<harness>-<variant>.bin here)."),
                force: bool = typer.Option(False, "--force", help="Overwrite an existing reproducer file."),
                as_json: bool = typer.Option(False, "--json", help="JSON output.")) -> None:
        """Explore every schedule of one scenario with at most K preemptions. Exit 1 on a failing
        schedule (reproducer written), 0 when exhausted clean, 3 when a budget ran out first."""
        from fuzzfarm import harness as H
        from fuzzfarm import views
        from fuzzfarm.cli.path import typed_python
        from fuzzfarm.engine import explore as E
        from fuzzfarm.engine.guard import skip_instrumentation

        try:  # all said before the search, which can take minutes
            E.check_limits(bound, max_schedules, max_time, names=("--preemption-bound", "--max-schedules", "--max-time"))
        except E.ExploreError as e:
            raise CLIError(str(e)) from None
        bad = E.output_problem(output, force=force) if output is not None else None
        if bad:
            raise CLIError(f"-o {bad}")
        try:
            data = E.read_input(input_file) if input_file is not None else b""
        except E.ExploreError as e:
            raise CLIError(str(e)) from None
        skip_instrumentation()
        mod = H.get(harness).load()
        v = H.check_variant(mod, variant if variant is not None else mod.VARIANTS[0])  # "" is no default
        target = output or f"dfs-{harness}-{v}.bin"
        bad = E.output_problem(target, force=force) if output is None else None
        if bad:  # the default file, known once the variant is
            raise CLIError(f"-o {bad}")
        try:
            res = E.explore(mod, v, data, bound=bound, reduce=not no_reduction,
                            max_schedules=max_schedules or None, max_time=max_time or None)
        except E.ExploreError as e:
            raise CLIError(f"{harness}/{v}: {e}") from None
        path = None
        if res.reproducer is not None:
            path = E.write_reproducer(target, res.reproducer)
            if path != target:  # the file went away during the search: the counterexample is kept
                err.print(f"fuzzfarm: warning: could not write {target}; the reproducer is in {path}", markup=False)
        code = EXIT_FAILURE if res.failure is not None else (EXIT_PROVEN if res.exhausted else EXIT_BUDGET)
        if as_json:
            _print_json({**res.to_json(), "reproducer_file": path})
            raise typer.Exit(code)
        out.print(f"{harness}/{v}: {res.scenario}", markup=False)
        out.print(res.verdict(), markup=False)
        out.print(f"  {res.runs} runs, {res.pruned} cut as already explored, {res.elapsed_s:.1f} s"
                  + (f"; left: {res.pending} subtree(s) by preemptions" if res.pending else ""), markup=False)
        if path is not None:
            f = res.failure
            # a race's two sides or a lock cycle's goroutines are no call chain (views.crash_where)
            out.print(f"  {f['kind']}: {f['message']}  {views.crash_where(f, whole=True)}", markup=False)
            err.print(f"reproducer written to {path}; replay it with "
                      f"`{E.replay_command(harness, v, path, python=typed_python())}`", markup=False)
        raise typer.Exit(code)


def submit_dfs(harness: str, variant: str, input_file: str | None, bound: int, all_failures: bool,
               no_reduction: bool, wait: bool, timeout: float, as_json: bool, max_starvation: str | None = None,
               force: bool = False) -> None:
    """``fuzzfarm submit HARNESS --strategy dfs``: the search as subtree tasks on the fuzz queue.
    With ``wait``: exit codes as ``explore`` (1 + reproducer file ``dfs-<harness>-<variant>.bin``,
    which an existing one is not replaced by without ``force``, 0 exhausted clean, 3 not
    exhausted: stopped by an error)."""
    import time

    import fuzzfarm
    from fuzzfarm import harness as H
    from fuzzfarm.cli._app import CLIError, _print_json, _store, check_max_starvation, err, out
    from fuzzfarm.harness.target import resolve
    from fuzzfarm.farm import configure, explore_jobs
    from fuzzfarm.farm.explore_tasks import submit

    if bound < 0:
        raise CLIError(f"--preemption-bound must be >= 0, got {bound}")
    info = H.get(harness)
    bad = resolve(harness).check_variant(variant)
    if bad:
        raise CLIError(bad)
    from fuzzfarm.engine.explore import ExploreError, output_problem, read_input, write_reproducer
    try:
        data = read_input(input_file) if input_file is not None else b""
    except ExploreError as e:
        raise CLIError(str(e)) from None
    target = f"dfs-{harness}-{variant}.bin"  # where --wait writes a counterexample: said before the search
    bad = output_problem(target, force=force) if wait else None
    if bad:
        raise CLIError(bad.replace("choose another -o FILE, or pass", "move it away, or pass"))
    st = _store()
    configure(st.url)
    spec = {"harness": harness, "variant": variant, "bound": bound, "reduce": not no_reduction,
            "all_failures": all_failures, "harness_hash": info.source_hash(), "version": fuzzfarm.__version__}
    if max_starvation is not None:  # every subtree runs under the search's bound (docs/timing.md)
        spec["max_starvation_s"] = check_max_starvation(max_starvation)
    eid = submit(st, spec, data)
    if not wait:
        return _print_json({"exploration": eid}) if as_json else out.print(eid)
    start = time.monotonic()
    while True:
        s = explore_jobs.summary(st, eid)
        if s["settled"]:
            break
        if timeout and time.monotonic() - start > timeout:
            raise CLIError(f"exploration {eid} not finished after {timeout:g} s; check `fuzzfarm status {eid}` "
                           f"and that a worker consumes -Q fuzz")
        time.sleep(0.5)
    path = None
    if s["failures"] and s["failures"][0].get("reproducer"):
        path = write_reproducer(target, bytes.fromhex(s["failures"][0]["reproducer"]))
        if path != target:  # the directory went away during the search: the counterexample is kept
            err.print(f"fuzzfarm: warning: could not write {target}; the reproducer is in {path}", markup=False)
    code = EXIT_FAILURE if s["failures"] else (EXIT_PROVEN if s["exhausted"] else EXIT_BUDGET)
    if as_json:
        _print_json({**s, "reproducer_file": path})
        raise typer.Exit(code)
    out.print(f"{eid}: {harness}/{variant}: {s['line']}", markup=False)
    err.print(f"  {s['subtrees_done']} subtrees, {s['runs']} runs", markup=False)
    if path:
        err.print(f"reproducer written to {path}", markup=False)
    raise typer.Exit(code)


def print_explorations(st, eid: str | None = None, as_json: bool = False) -> bool:
    """``fuzzfarm status``: the dfs searches (one, or all); False when ``eid`` is unknown."""
    from rich.table import Table

    from fuzzfarm.cli._app import _print_json, out
    from fuzzfarm.farm import explore_jobs

    rows = [s for s in (explore_jobs.summary(st, e) for e in ([eid] if eid else explore_jobs.ids(st))) if s]
    if eid and not rows:
        return False
    if as_json:
        _print_json(rows[0] if eid else rows)
        return True
    if not rows:
        return True
    t = Table(title="dfs searches")
    for c in ("search", "harness", "variant", "bound", "subtrees done/pending", "schedules", "runs", "result"):
        t.add_column(c, no_wrap=c == "search")
    for s in rows:
        pending = s["subtrees"] - s["subtrees_done"] - s["subtrees_cancelled"]
        t.add_row(s["id"], s["harness"], s["variant"], str(s["bound"]), f"{s['subtrees_done']}/{pending}",
                  f"{s['schedules']:,}", f"{s['runs']:,}", s["line"] if s["settled"] else "running")
    out.print(t)
    return True
