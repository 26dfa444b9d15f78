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


# (module, function) the CLI's command calls; the first importable one is used.
CANCEL = (("fuzzfarm.farm.cancel", "cancel_campaign"), ("fuzzfarm.farm.jobs", "cancel_campaign"))
SPLIT = (("fuzzfarm.collector.groups", "split_group"), ("fuzzfarm.farm.groups", "split_group"))
MERGE = (("fuzzfarm.collector.groups", "merge_groups"), ("fuzzfarm.farm.groups", "merge_groups"))


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
    """Cancel campaign ``cid`` the way ``fuzzfarm cancel`` does."""
    return _find(CANCEL, "cancel")(st, cid)


def split(st, group: str, buckets: list[str]):
    """Split ``buckets`` out of ``group`` into a group of their own (``fuzzfarm group split``)."""
    return _find(SPLIT, "group split")(st, group, buckets)


def merge(st, groups: list[str]):
    """Merge ``groups`` into one (``fuzzfarm group merge``)."""
    return _find(MERGE, "group merge")(st, groups)
