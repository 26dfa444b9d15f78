"""``fuzzfarm gc`` and ``fuzzfarm delete``: bound what finished campaigns leave in Redis
(:mod:`fuzzfarm.farm.store.retention`: buckets, groups and artifacts stay; campaign records, job stats,
time series and triaged crash inputs go)."""

from __future__ import annotations

import re

import typer

from fuzzfarm.farm.store import retention


def parse_age(text: str) -> float:
    """``30d``, ``12h``, ``90m``, ``45s``, ``0`` -> seconds (>= 0). A bare number is days, as
    the default (``30`` must not mean thirty seconds on a real farm)."""
    from fuzzfarm.cli._app import CLIError
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([dhms]?)", str(text).strip().lower())
    if not m:
        raise CLIError(f"--older-than {text!r} is not an age; use e.g. 30d, 12h, 90m or 0")
    return float(m.group(1)) * {"d": 86400, "h": 3600, "m": 60, "s": 1, "": 86400}[m.group(2)]


def register(app: typer.Typer) -> None:
    from fuzzfarm.cli._app import CLIError, _print_json, _store, errors_to_exit, out

    def _report(removed: list[retention.Removal], dry_run: bool, as_json: bool) -> None:
        if as_json:
            return _print_json({"dry_run": dry_run, "campaigns": [r.as_dict() for r in removed]})
        verb = "would remove" if dry_run else "removed"
        for r in removed:
            out.print(f"{verb} campaign {r.campaign}: {len(r.keys)} keys ({r.crash_inputs} triaged crash inputs"
                      + (f"; {r.kept_untriaged} untriaged kept" if r.kept_untriaged else "") + ")", markup=False)
        out.print(f"{verb} {len(removed)} campaign(s); buckets, groups and artifacts are kept", markup=False)

    @app.command()
    @errors_to_exit
    def gc(older_than: str = typer.Option("30d", "--older-than", help="Remove settled campaigns submitted before this age (30d, 12h, 90m; a bare number is days)."),
           dry_run: bool = typer.Option(False, "--dry-run", help="Say what would go; remove nothing."),
           as_json: bool = typer.Option(False, "--json", help="JSON output.")) -> None:
        """Remove old finished campaigns from Redis (records, job stats, series, triaged crash
        inputs); buckets, groups and artifacts stay until deleted."""
        age = parse_age(older_than)  # a bad age is said before Redis is asked
        st = _store()
        _report(retention.collect(st, older_than_s=age, dry_run=dry_run), dry_run, as_json)

    @app.command()
    @errors_to_exit
    def delete(campaign: str = typer.Argument(..., help="Campaign id (see `fuzzfarm status`)."),
               dry_run: bool = typer.Option(False, "--dry-run", help="Say what would go; remove nothing."),
               as_json: bool = typer.Option(False, "--json", help="JSON output.")) -> None:
        """Remove one finished campaign from Redis; its buckets and artifacts stay."""
        st = _store()
        try:
            removed = retention.remove_campaign(st, campaign, dry_run=dry_run)
        except retention.NotRemovable as e:
            raise CLIError(str(e)) from None
        _report([removed], dry_run, as_json)
