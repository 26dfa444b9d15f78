"""``fuzzfarm cancel CAMPAIGN``: stop a campaign early and keep what it found.

Cancelling is recorded in Redis, not in Celery's revoke list (which lives in the workers'
memory only and is lost when they restart): queued jobs are marked ``cancelled`` at once and
their messages dropped when a worker receives them; a running job sees the mark at its next
stats tick (every 2 s) and stops its fuzzer. Crashes already found are kept, and their
triage goes on; the campaign ends ``cancelled`` once that triage is done.
"""

from __future__ import annotations

import time

import typer

from fuzzfarm.cli._app import CLIError, _print_json, _store, err, errors_to_exit, out


def register(app: typer.Typer) -> None:
    @app.command()
    @errors_to_exit
    def cancel(campaign: str = typer.Argument(..., help="Campaign id (see `fuzzfarm status`)."),
               wait: float = typer.Option(30, "--wait", help="Seconds to wait for running jobs to stop (0: don't)."),
               as_json: bool = typer.Option(False, "--json", help="JSON output.")) -> None:
        """Cancel a campaign: queued jobs never run, running ones stop within seconds; the
        crashes found so far are kept and triaged."""
        st = _store()
        s = st.campaign_summary(campaign)
        if s is None:
            raise CLIError(f"unknown campaign {campaign!r}; list campaigns with `fuzzfarm status`")
        if s["status"] in ("done", "failed"):
            raise CLIError(f"campaign {campaign} is already {s['status']}; nothing to cancel")
        running = st.request_cancel(campaign)
        deadline = time.monotonic() + max(0.0, wait)
        states = [j.get("state") for j in st.jobs(campaign)]
        while wait and any(x not in ("done", "failed", "cancelled") for x in states) and time.monotonic() < deadline:
            time.sleep(0.3)
            states = [j.get("state") for j in st.jobs(campaign)]
        left = [n for n, x in enumerate(states) if x not in ("done", "failed", "cancelled")]
        s = st.campaign_summary(campaign)
        if as_json:
            return _print_json({"campaign": campaign, "jobs": states, "still_running": left,
                                "crashes": s["crashes"], "buckets": s["buckets"]})
        out.print(f"campaign {campaign} cancelled: jobs {', '.join(f'{n}:{x}' for n, x in enumerate(states))}; "
                  f"{s['crashes']} crash(es) and {s['buckets']} bucket(s) kept "
                  f"(`fuzzfarm crashes {campaign}`)", markup=False)
        if left:
            err.print(f"fuzzfarm: warning: job(s) {', '.join(map(str, left))} still running after {wait:g} s "
                      f"(of {len(running)} running at cancel); they stop at their next stats tick — is their "
                      f"worker alive? (`fuzzfarm status {campaign}`)", markup=False)
