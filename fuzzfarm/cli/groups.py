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
import unicodedata

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
    from fuzzfarm.cli import tables as T
    console.print(T.group_table(grouped(st, rows), title, wide=T.is_wide(console.width, wide)), soft_wrap=False)


class GroupError(ValueError):
    """A split or merge that cannot be done; ``str`` says why and what to do."""


def _find_group(groups: list[dict], ref: str) -> dict:
    for g in groups:
        if g["id"] == ref or any(b["id"] == ref for b in g["buckets"]):
            return g
    raise GroupError(f"no group or bucket {ref!r}; list them with `fuzzfarm crashes`")


def _all_groups(st) -> list[dict]:
    from fuzzfarm.cli.bugs import bucket_rows
    return grouped(st, bucket_rows(st))


# Control and format characters (newlines, ESC, bidi overrides, zero-width marks) in a name would
# garble the tables, forge lines in a terminal, or show one name as another in the web view.
_BAD_NAME_CATEGORIES = ("Cc", "Cf", "Cs", "Zl", "Zp")
MAX_NAME = 200


def check_name(name: str | None) -> str | None:
    """``name`` when it can name a group (printable, not blank, at most MAX_NAME characters)."""
    if name is None:
        return None
    bad = next((c for c in name if unicodedata.category(c) in _BAD_NAME_CATEGORIES), None)
    if bad is not None:
        raise GroupError(f"--name holds the control character U+{ord(bad):04X}; a group name is shown in tables "
                         f"and the web view: use printable text only")
    if not name.strip():
        raise GroupError("--name is blank; give the group a name, or leave --name out to keep the current one")
    if len(name) > MAX_NAME:
        raise GroupError(f"--name is {len(name)} characters long; a group name has at most {MAX_NAME}")
    return name


def split_bucket(st, bucket: str, name: str | None = None) -> str:
    """Make ``bucket`` a group of its own (``fuzzfarm group split``, and the web view's button).
    Returns what was done, in one line."""
    name = check_name(name)
    g = _find_group(_all_groups(st), bucket)
    b = next((b for b in g["buckets"] if b["id"] == bucket), None)
    if b is None:
        raise GroupError(f"{bucket!r} is a group, not a bucket; split takes a bucket id")
    gid = "m" + hashlib.sha1(f"split\0{bucket}".encode()).hexdigest()[:10]
    st.set_group([bucket], gid, name or f"{b.get('crash_type') or b.get('kind')} at "
                                        f"{' < '.join(b.get('crash_state') or [])} (split)")
    return f"{bucket} -> group {gid}"


def merge_groups(st, refs: list[str], name: str | None = None) -> str:
    """Put the buckets of every later group (or bucket's group) of ``refs`` into the first
    (``fuzzfarm group merge``, and the web view's button). Returns what was done, in one line."""
    if len(refs) < 2:
        raise GroupError("merge needs at least two groups: fuzzfarm group merge GROUP GROUP...")
    name = check_name(name)
    all_groups = _all_groups(st)
    target = _find_group(all_groups, refs[0])
    others = {g["id"]: g for g in (_find_group(all_groups, ref) for ref in refs[1:]) if g["id"] != target["id"]}
    moved = [b["id"] for g in others.values() for b in g["buckets"]]
    if not moved:  # every ref names the target group (or one of its buckets): a merge would change nothing
        raise GroupError(f"{', '.join(refs)}: all in group {target['id']} already; nothing merged (list the groups "
                         f"with `fuzzfarm crashes`)")
    st.set_group([b["id"] for b in target["buckets"]] + moved, target["id"], name or target["name"])
    return f"{len(moved)} bucket(s) -> group {target['id']}"


def register(app: typer.Typer) -> None:
    from fuzzfarm.cli._app import CLIError, _store, errors_to_exit, out

    @group_app.command("split")
    @errors_to_exit
    def split(bucket: str = typer.Argument(..., help="Bucket id to take out of its group."),
              name: str = typer.Option(None, "--name", help="Name of the new group.")) -> None:
        """Make BUCKET a group of its own."""
        try:
            out.print(split_bucket(_store(), bucket, name), markup=False)
        except GroupError as e:
            raise CLIError(str(e)) from None

    @group_app.command("merge")
    @errors_to_exit
    def merge(groups: list[str] = typer.Argument(..., help="Group ids (or bucket ids); the first one receives the rest."),
              name: str = typer.Option(None, "--name", help="New name of the merged group.")) -> None:
        """Put the buckets of every later GROUP into the first."""
        try:
            out.print(merge_groups(_store(), groups, name), markup=False)
        except GroupError as e:
            raise CLIError(str(e)) from None

    app.add_typer(group_app, name="group")
