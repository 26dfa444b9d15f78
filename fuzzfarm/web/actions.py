"""The web view's state-changing actions, each one call into the code the CLI runs.

Cancel belongs to ``fuzzfarm cancel`` and group split/merge to ``fuzzfarm group split|merge``;
this module only finds that code and calls it. Where this build has no such code, the action
says so (:class:`NotAvailable`) instead of doing something of its own: the page then shows
the one line and changes nothing.
"""

from __future__ import annotations

import importlib


class NotAvailable(Exception):
    """This build has no code for the action; ``str`` says which command would provide it."""


# (module, function) the CLI's command calls; the first importable one is used. Split and merge
# take (store, bucket id) and (store, [group or bucket ids], the first one receiving the rest).
SPLIT = (("fuzzfarm.cli_groups", "split_bucket"), ("fuzzfarm.collector.grouping", "split_bucket"))
MERGE = (("fuzzfarm.cli_groups", "merge_groups"), ("fuzzfarm.collector.grouping", "merge_groups"))


def _find(candidates, what: str):
    for mod, fn in candidates:
        try:
            m = importlib.import_module(mod)
        except ImportError:
            continue
        f = getattr(m, fn, None)
        if callable(f):
            return f
    raise NotAvailable(f"{what} is not available in this fuzzfarm build (no {' / '.join(m + '.' + f for m, f in candidates)})")


def cancel(st, cid: str):
    """Cancel campaign ``cid`` as ``fuzzfarm cancel`` does: ``Store.request_cancel`` (queued jobs
    never run, running ones stop at their next stats tick; what was found is kept)."""
    request = getattr(st, "request_cancel", None)
    if request is None:
        raise NotAvailable("cancel is not available in this fuzzfarm build (no Store.request_cancel)")
    s = st.campaign_summary(cid)
    if s["status"] in ("done", "failed", "cancelled"):
        raise NotAvailable(f"campaign {cid} is already {s['status']}; nothing to cancel")
    running = request(cid)
    return f"{len(running or [])} running job(s) stop within seconds"


def split(st, bucket: str):
    """Make ``bucket`` a group of its own (``fuzzfarm group split BUCKET``)."""
    return _find(SPLIT, "group split")(st, bucket)


def merge(st, groups: list[str]):
    """Put the buckets of every later group into the first (``fuzzfarm group merge G G...``)."""
    return _find(MERGE, "group merge")(st, groups)
