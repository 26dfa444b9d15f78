"""Every Redis key of fuzzfarm is built in fuzzfarm/farm/store/keys.py and read or written through
fuzzfarm/farm/store/ (issue 32, item 3): no module outside the store package reaches the Redis
client (``.r``), builds a key by hand (``P + ...``, a ``"fuzzfarm:..."`` literal) or uses the
store's private helpers. Read from the source's syntax tree, so a function-local use counts too."""

from __future__ import annotations

import ast
import pathlib
import re

import fuzzfarm
from fuzzfarm.farm.store import keys

ROOT = pathlib.Path(fuzzfarm.__file__).parent
STORE = ROOT / "farm" / "store"
PRIVATE = {"_job_key", "_crash_key", "_enc", "_dec", "_contexts_key", "_distrust_key", "_merge_queued_key"}
KEY_LITERAL = re.compile(r"^fuzzfarm:[a-z_]")

# Modules allowed to reach Redis outside the store while a rewrite is under way (none now).
PENDING: set[str] = set()


def _violations(path: pathlib.Path, root: pathlib.Path = ROOT) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    found = []
    for node in ast.walk(tree):
        what = None
        if isinstance(node, ast.Attribute) and node.attr == "r" and isinstance(node.ctx, ast.Load):
            what = "the Redis client (.r)"
        elif isinstance(node, ast.Attribute) and node.attr in PRIVATE:
            what = f"the store's private {node.attr}"
        elif isinstance(node, ast.Attribute) and node.attr == "P":
            what = "the key prefix (P)"
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.endswith("store") and any(
                a.name == "P" or a.name in PRIVATE for a in node.names):
            what = "the key prefix or a private helper imported"
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and KEY_LITERAL.match(node.value):
            what = f"a hand-built key {node.value!r}"
        if what:
            found.append(f"{path.relative_to(root)}:{node.lineno}: {what}")
    return found


def test_no_module_outside_the_store_builds_a_key_or_reaches_redis():
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if path.is_relative_to(STORE) or rel in PENDING:
            continue
        found += _violations(path)
    assert not found, "\n".join(found)


def test_the_check_sees_what_it_forbids(tmp_path):
    """The scan itself is not blind: each forbidden shape, also inside a function, is reported."""
    bad = tmp_path / "bad.py"
    bad.write_text("from fuzzfarm.farm import store as S\n"
                   "def f(st):\n"
                   "    st.r.get(S.P + 'x')\n"
                   "    st._job_key('c', 1)\n"
                   "    return 'fuzzfarm:explore:' + 'y'\n")
    got = "\n".join(_violations(bad, tmp_path))
    for want in ("Redis client", "key prefix", "_job_key", "hand-built key"):
        assert want in got, got


def test_every_key_has_one_lifetime_and_gc_uses_the_list():
    """Each key function is filed under exactly one lifetime in keys.LIFETIME (kept, campaign,
    bounded): that table is the list gc (store/retention.py) works from."""
    funcs = {n for n, v in vars(keys).items() if callable(v) and not n.startswith("_")
             and getattr(v, "__module__", "") == keys.__name__ and n not in keys.NOT_KEYS}
    filed = [f.__name__ for fs in keys.LIFETIME.values() for f in fs]
    assert sorted(filed) == sorted(set(filed)), "a key filed twice"
    assert set(filed) == funcs, (set(filed) ^ funcs)
    for name in ("orphans", "recheck", "bucket_contexts", "campaign_mix", "campaign_skew", "corpus_merge_queued"):
        assert name in filed
