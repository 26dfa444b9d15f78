"""``fuzzfarm up`` / ``fuzzfarm down``: a local farm that stays up between commands.

``up`` starts, in the background, a supervisor (:mod:`fuzzfarm.farm.supervisor`) that keeps a
redis-server (AOF, loopback, a port and password kept under the user's data directory) and two
workers (``fuzz`` and a separate ``collect``) running. Every other command given no ``--redis``
and no ``$FUZZFARM_REDIS_URL`` then uses it. ``down`` stops exactly the processes ``up`` started
(by PID); the farm's data stays for the next ``up``.
"""

from __future__ import annotations

import os

import typer

from fuzzfarm.cli._app import CLIError, _print_json, err, errors_to_exit, out, which_farm
from fuzzfarm.farm import local, redis_url


def default_fuzz_concurrency() -> int:
    return max(2, os.cpu_count() or 1)


def ensure_up(*, fuzz_concurrency: int | None = None, collect_concurrency: int = 2,
              env: dict | None = None) -> tuple[dict, bool]:
    """(state of the running local farm, whether it was started now)."""
    st = local.running()
    if st and st.get("status") == "up":
        return st, False
    if st:  # its supervisor is still starting it (another `up`)
        raise CLIError(f"the local farm is starting (supervisor pid {st['supervisor_pid']}); retry in a few seconds")
    return local.start(fuzz_concurrency=fuzz_concurrency or default_fuzz_concurrency(),
                       collect_concurrency=collect_concurrency, env=env), True


def describe(st: dict) -> str:
    workers = ", ".join(f"{s['name']} (pid {s['pid']})" for s in st.get("services", []))
    return (f"redis-server pid {st.get('redis_pid')}, {workers}; supervisor pid {st.get('supervisor_pid')}; "
            f"logs in {st.get('dir')}")


def register(app: typer.Typer) -> None:
    @app.command()
    @errors_to_exit
    def up(concurrency: int = typer.Option(default_fuzz_concurrency(), "-c", "--concurrency",
                                           help="Fuzz worker processes."),
           collect_concurrency: int = typer.Option(2, "--collect-concurrency", help="Collect (triage) processes."),
           as_json: bool = typer.Option(False, "--json", help="JSON output.")) -> None:
        """Start a local farm in the background (redis-server + a fuzz and a collect worker) that
        every other command then uses; `fuzzfarm down` stops it."""
        if concurrency < 1 or collect_concurrency < 1:
            raise CLIError("--concurrency and --collect-concurrency must be at least 1")
        from fuzzfarm import harness as H
        H.max_starvation_s()  # a bad FUZZFARM_MAX_STARVATION_S: one line here, not a worker dying in the log
        st, fresh = ensure_up(fuzz_concurrency=concurrency, collect_concurrency=collect_concurrency)
        url = redis_url.mask(st["url"])
        if as_json:
            return _print_json({"farm": local.farm_name(), "url": url, "started": fresh,
                                "supervisor_pid": st["supervisor_pid"],
                                "redis_pid": st["redis_pid"], "dir": st["dir"],
                                "web": next((s["url"] for s in st["services"] if s.get("url")), None),
                                "workers": [{k: s[k] for k in ("name", "pid", "queues")} for s in st["services"]]})
        if not fresh:
            out.print(f"fuzzfarm: {which_farm()} is already running at {url} ({describe(st)}); "
                      f"`fuzzfarm down` stops it", markup=False)
            return
        out.print(f"fuzzfarm: {which_farm()} up at {url}", markup=False)
        out.print(f"  {describe(st)}", markup=False)
        web = next((s["url"] for s in st.get("services", []) if s.get("url")), None)
        if web:
            out.print(f"  web view {web} (read-only; stays up with the farm)", markup=False)
        out.print("  other fuzzfarm commands now use it (no --redis or $FUZZFARM_REDIS_URL needed); "
                  "`fuzzfarm down` stops it", markup=False)
        if redis_url.ENV in os.environ:
            err.print(f"fuzzfarm: warning: ${redis_url.ENV} is set in this shell, so commands here use that "
                      f"Redis, not the local farm; unset it to use the local farm", markup=False)

    @app.command()
    @errors_to_exit
    def down(as_json: bool = typer.Option(False, "--json", help="JSON output.")) -> None:
        """Stop the local farm started by `fuzzfarm up` (its data stays for the next `up`)."""
        st = local.stop()
        if as_json:
            return _print_json({"farm": local.farm_name(), "stopped": st is not None,
                                "pids": [p for p, _ in local.started_pids(st)] if st else []})
        if st is None:
            out.print(f"fuzzfarm: no local farm is running: {which_farm()} is not up (other farms, of other "
                      f"checkouts or names, are left alone)", markup=False)
            return
        pids = ", ".join(str(p) for p, _ in local.started_pids(st))
        forced = f" ({len(st['killed'])} killed after the shutdown window)" if st.get("killed") else ""
        out.print(f"fuzzfarm: local farm stopped: {which_farm()} (pids {pids}){forced}; its data stays in "
                  f"{st.get('dir')}", markup=False)
