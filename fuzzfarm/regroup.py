"""The user's corrections to root-cause groups (``fuzzfarm group split|merge`` and the web view's
buttons): kept in Redis as overrides that win over the computed groups
(:mod:`fuzzfarm.collector.grouping`). Nothing here changes a bucket or drops an input. A
correction that cannot be done raises :class:`fuzzfarm.views.ViewError`.
"""

from __future__ import annotations

import hashlib
import unicodedata

from fuzzfarm import views
from fuzzfarm.views import ViewError

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
        raise ViewError(f"--name holds the control character U+{ord(bad):04X}; a group name is shown in tables "
                        f"and the web view: use printable text only")
    if not name.strip():
        raise ViewError("--name is blank; give the group a name, or leave --name out to keep the current one")
    if len(name) > MAX_NAME:
        raise ViewError(f"--name is {len(name)} characters long; a group name has at most {MAX_NAME}")
    return name


def split(st, ref: str, name: str | None = None) -> str:
    """Bucket ``ref`` becomes a group of its own; a group ``ref``: each of its buckets does.
    Returns what was done, in one line."""
    name = check_name(name)
    g = views.find_group(views.groups(views.bucket_rows(st)), ref)
    bs = [b for b in g["buckets"] if b["id"] == ref] or g["buckets"]
    if name and len(bs) > 1:
        raise ViewError(f"group {ref} has {len(bs)} buckets and split makes a group of each: --name would name "
                        f"them all alike; split without --name, or split one bucket to name its group")
    done = []
    for b in bs:
        gid = "m" + hashlib.sha1(f"split\0{b['id']}".encode()).hexdigest()[:10]
        own = f"{b.get('crash_type') or b.get('kind')} at {b['crash_state_text']} (split)"
        st.set_group([b["id"]], gid, name or own)
        done.append(f"{b['id']} -> group {gid}")
    return ", ".join(done)


def merge(st, refs: list[str], name: str | None = None) -> str:
    """Put the buckets of every later group (or bucket's group) of ``refs`` into the first.
    Returns what was done, in one line."""
    if len(refs) < 2:
        raise ViewError("merge needs at least two groups: fuzzfarm group merge GROUP GROUP...")
    name = check_name(name)
    every = views.groups(views.bucket_rows(st))
    target = views.find_group(every, refs[0])
    others = {g["id"]: g for g in (views.find_group(every, ref) for ref in refs[1:]) if g["id"] != target["id"]}
    moved = [b["id"] for g in others.values() for b in g["buckets"]]
    if not moved:  # every ref names the target group (or one of its buckets): a merge would change nothing
        raise ViewError(f"{', '.join(refs)}: all in group {target['id']} already; nothing merged (list the groups "
                        f"with `fuzzfarm crashes`)")
    st.set_group([b["id"] for b in target["buckets"]] + moved, target["id"], name or target["name"])
    return f"{len(moved)} bucket(s) -> group {target['id']}"
