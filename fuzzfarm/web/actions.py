"""The web view's state-changing actions, each one call into the code the CLI runs.

Cancel is ``fuzzfarm cancel``'s ``Store.request_cancel`` and group split/merge are
``fuzzfarm group split|merge``'s functions; this module only calls them, so the page and the
command can never disagree. An action that cannot be done raises :class:`ActionError` (a
ValueError, as the group functions' own errors are): the page shows its one line and nothing
changes.
"""

from __future__ import annotations


class ActionError(ValueError):
    """The action cannot be done as asked; ``str`` says why."""


def cancel(st, cid: str):
    """Cancel campaign ``cid`` as ``fuzzfarm cancel`` does: ``Store.request_cancel`` (queued jobs
    never run, running ones stop at their next stats tick; what was found is kept)."""
    s = st.campaign_summary(cid)
    if s["status"] in ("done", "failed", "cancelled"):
        raise ActionError(f"campaign {cid} is already {s['status']}; nothing to cancel")
    running = st.request_cancel(cid)
    return f"{len(running or [])} running job(s) stop within seconds"


def split(st, bucket: str):
    """Make ``bucket`` a group of its own (``fuzzfarm group split BUCKET``)."""
    from fuzzfarm.cli.groups import split_bucket
    return split_bucket(st, bucket)


def merge(st, groups: list[str]):
    """Put the buckets of every later group into the first (``fuzzfarm group merge G G...``)."""
    from fuzzfarm.cli.groups import merge_groups
    return merge_groups(st, groups)
