"""``fuzzfarm crashes`` grouped by root cause, and ``fuzzfarm group split|merge``.

    fuzzfarm crashes [CAMPAIGN]          # groups first, each with its buckets under it
    fuzzfarm crashes --flat              # one row per bucket
    fuzzfarm group split BUCKET          # the bucket becomes a group of its own
    fuzzfarm group merge GROUP GROUP...  # the buckets of the later groups join the first

Groups are computed by :mod:`fuzzfarm.collector.grouping`; the user's splits and merges are
kept in Redis and win. Nothing here changes a bucket or drops an input.
"""

from __future__ import annotations

import hashlib

import typer
from rich.console import Console

group_app = typer.Typer(add_completion=False, no_args_is_help=True,
                        help="Split or merge root-cause groups of buckets (the buckets stay as they are).")


def grouped(st, rows: list[dict]) -> list[dict]:
    from fuzzfarm.collector.grouping import group_buckets
    return group_buckets(rows, st.group_overrides(), st.group_names())


def annotate(st, rows: list[dict]) -> list[dict]:
    """``rows`` with ``group`` / ``group_name`` set (for ``--json``)."""
    for g in grouped(st, rows):
        for b in g["buckets"]:
            b["group"], b["group_name"] = g["id"], g["name"]
    return rows


def print_groups(st, rows: list[dict], title: str, console: Console, *, wide: bool = False) -> None:
    """Groups first, each followed by its buckets (indented)."""
    from fuzzfarm import cli_tables as T
    console.print(T.group_table(grouped(st, rows), title, wide=T.is_wide(console.width, wide)), soft_wrap=False)


def _find_group(groups: list[dict], ref: str) -> dict:
    from fuzzfarm.cli import CLIError
    for g in groups:
        if g["id"] == ref or any(b["id"] == ref for b in g["buckets"]):
            return g
    raise CLIError(f"no group or bucket {ref!r}; list them with `fuzzfarm crashes`")


def _all_groups(st) -> list[dict]:
    from fuzzfarm.cli import bucket_rows
    return grouped(st, bucket_rows(st))


def register(app: typer.Typer) -> None:
    from fuzzfarm.cli import _store, errors_to_exit, out

    @group_app.command("split")
    @errors_to_exit
    def split(bucket: str = typer.Argument(..., help="Bucket id to take out of its group."),
              name: str = typer.Option(None, "--name", help="Name of the new group.")) -> None:
        """Make BUCKET a group of its own."""
        st = _store()
        g = _find_group(_all_groups(st), bucket)
        b = next((b for b in g["buckets"] if b["id"] == bucket), None)
        if b is None:
            from fuzzfarm.cli import CLIError
            raise CLIError(f"{bucket!r} is a group, not a bucket; split takes a bucket id")
        gid = "m" + hashlib.sha1(f"split\0{bucket}".encode()).hexdigest()[:10]
        st.set_group([bucket], gid, name or f"{b.get('crash_type') or b.get('kind')} at "
                                            f"{' < '.join(b.get('crash_state') or [])} (split)")
        out.print(f"{bucket} -> group {gid}", markup=False)

    @group_app.command("merge")
    @errors_to_exit
    def merge(groups: list[str] = typer.Argument(..., help="Group ids (or bucket ids); the first one receives the rest."),
              name: str = typer.Option(None, "--name", help="New name of the merged group.")) -> None:
        """Put the buckets of every later GROUP into the first."""
        from fuzzfarm.cli import CLIError
        if len(groups) < 2:
            raise CLIError("merge needs at least two groups: fuzzfarm group merge GROUP GROUP...")
        st = _store()
        all_groups = _all_groups(st)
        target = _find_group(all_groups, groups[0])
        moved = [b["id"] for ref in groups[1:] for b in _find_group(all_groups, ref)["buckets"]]
        st.set_group([b["id"] for b in target["buckets"]] + moved, target["id"], name or target["name"])
        out.print(f"{len(moved)} bucket(s) -> group {target['id']}", markup=False)

    app.add_typer(group_app, name="group")
