"""The web view's state-changing actions, each one call into the code the CLI runs.

Cancel is ``fuzzfarm cancel``'s ``Store.request_cancel`` and group split/merge are
:mod:`fuzzfarm.regroup`'s (``fuzzfarm group split|merge``); this module only calls them, so the
page and the command can never disagree. An action that cannot be done raises a ValueError
(:class:`ActionError`, or regroup's ``ViewError``): the page shows its one line and nothing changes.
"""

from __future__ import annotations

from fuzzfarm import regroup


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


split, merge = regroup.split, regroup.merge  # ``fuzzfarm group split BUCKET`` / ``merge G G...``
