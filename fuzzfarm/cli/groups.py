"""``fuzzfarm group split|merge``: correct the root-cause groups of ``fuzzfarm crashes``.

    fuzzfarm group split BUCKET          # the bucket becomes a group of its own
    fuzzfarm group split GROUP           # each bucket of the group becomes a group of its own
    fuzzfarm group merge GROUP GROUP...  # the buckets of the later groups join the first

The corrections are :mod:`fuzzfarm.regroup`'s (the web view's buttons call it too).
"""

from __future__ import annotations

import typer

from fuzzfarm import regroup
from fuzzfarm.cli._app import _store, errors_to_exit, out

group_app = typer.Typer(add_completion=False, no_args_is_help=True,
                        help="Split or merge root-cause groups of buckets (the buckets stay as they are).")


def register(app: typer.Typer) -> None:
    @group_app.command("split")
    @errors_to_exit
    def split(ref: str = typer.Argument(..., metavar="BUCKET|GROUP",
                                        help="Bucket id to take out of its group, or group id to split into its buckets."),
              name: str = typer.Option(None, "--name", help="Name of the new group (splitting one bucket).")) -> None:
        """Make BUCKET a group of its own, or each bucket of GROUP."""
        out.print(regroup.split(_store(), ref, name), markup=False)

    @group_app.command("merge")
    @errors_to_exit
    def merge(groups: list[str] = typer.Argument(..., help="Group ids (or bucket ids); the first one receives the rest."),
              name: str = typer.Option(None, "--name", help="New name of the merged group.")) -> None:
        """Put the buckets of every later GROUP into the first."""
        out.print(regroup.merge(_store(), groups, name), markup=False)

    app.add_typer(group_app, name="group")
