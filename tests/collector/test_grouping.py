"""Root-cause groups: exact buckets below, one group per bug above; hazards their own group;
user splits and merges through the real CLI on a real redis-server; nothing is discarded."""

from __future__ import annotations

import json

from fuzzfarm.collector.grouping import group_buckets

P3B = "WaitGroup reused before previous Wait returned"


def _b(bid, harness, kind, state, **kw):
    return {"id": bid, "harness": harness, "variant": "buggy", "kind": kind, "crash_state": state,
            "crash_type": kw.pop("crash_type", kind), **kw}


# The demo's buckets (kinds, crash states, map labels and racing writers as the runtime reports them).
DEMO = [
    _b("s1", "checker", "goroutine panic", ["ObjectChecker.stop", "CheckerMap.delete_and_stop", "x"],
       crash_type="goroutine panic (TypeError)"),
    _b("s2", "checker", "goroutine panic", ["ObjectChecker.stop", "CheckerMap.add", "y"],
       crash_type="goroutine panic (TypeError)"),
    _b("s3", "checker", "goroutine panic", ["ObjectChecker.stop", "CheckerMap.dispose", "z"],
       crash_type="goroutine panic (TypeError)"),
    _b("p3b", "checker", P3B, ["Group.wait", "WaitForControlledPods.gather", "execute.main"], fix_keeps=True),
    _b("t1", "cluster-builder", "concurrent map writes", ["default_opts", "new", "new"], object="DefaultNamespaces",
       racing_site="default_opts"),
    _b("t2", "cluster-builder", "concurrent map iteration and map write", ["new_multi_namespace_cache", "new", "new"],
       object="DefaultNamespaces", racing_site="default_opts"),
    _b("t3", "cluster-builder", "concurrent map read and map write", ["default_opts", "new", "new"],
       object="DefaultNamespaces", racing_site="default_opts"),
    _b("t4", "cluster-builder", "concurrent map iteration and map write", ["new", "new", "KubernetesOptions._build_one"],
       object="ByObject", racing_site="default_opts"),
    _b("t5", "cluster-builder", "concurrent map writes", ["default_opts", "new", "new"],
       object="ByObject[Pod].Namespaces", racing_site="new_multi_namespace_cache"),
]


def _ids(groups):
    return [sorted(b["id"] for b in g["buckets"]) for g in groups]


def test_the_demo_is_two_bugs_and_a_named_hazard():
    groups = group_buckets(DEMO)
    assert _ids(groups) == [["s1", "s2", "s3"], ["p3b"], ["t1", "t2", "t3", "t4", "t5"]]
    names = [g["name"] for g in groups]
    assert names[0] == "checker/buggy: goroutine panic (TypeError) in ObjectChecker.stop"
    assert names[1].startswith("checker/buggy: hazard: " + P3B) and groups[1]["hazard"]
    assert "DefaultNamespaces" in names[2] and "default_opts" in names[2] and not groups[2]["hazard"]
    assert sum(len(g["buckets"]) for g in groups) == len(DEMO)  # every bucket is in exactly one group


def test_different_bugs_stay_apart():
    other = [
        _b("a", "checker", "goroutine panic", ["ObjectChecker.stop", "p", "q"], crash_type="goroutine panic (TypeError)"),
        _b("b", "checker", "goroutine panic", ["ObjectChecker.stop", "p", "q"], crash_type="goroutine panic (KeyError)"),
        _b("c", "checker", P3B, ["Group.add", "ObjectChecker.run", "execute.main"]),  # a new reuse bug: no hazard
        _b("d", "cluster-builder", "concurrent map writes", ["f"], object="m1", racing_site="w1"),
        _b("e", "cluster-builder", "concurrent map writes", ["g"], object="m2", racing_site="w2"),
        {**_b("f", "cluster-builder", "concurrent map writes", ["f"], object="m1", racing_site="w1"), "variant": "fixed"},
    ]
    assert _ids(group_buckets(other)) == [["a"], ["b"], ["c"], ["d"], ["e"], ["f"]]


def test_overrides_win_and_ids_are_stable():
    first = group_buckets(DEMO)
    assert [g["id"] for g in group_buckets(list(reversed(DEMO)))][::-1] == [g["id"] for g in first]
    gid_s = first[0]["id"]
    groups = group_buckets(DEMO, overrides={"s3": "mine"}, names={"mine": "S3 alone"})
    assert ["s3"] in _ids(groups) and next(g for g in groups if g["id"] == "mine")["name"] == "S3 alone"
    assert next(g for g in groups if g["id"] == gid_s)["buckets"][-1]["id"] == "s2"


# the toy harness's concurrent-map-writes input (tests/collector/test_collector_toy.py's MAP_WRITES)
MAP_WRITES_INPUT = bytes.fromhex("3aeb5554cbf40399a360898d98df55d7c178a8d7c402b8")


def test_the_runtime_names_the_map_and_the_racing_writer(toy):
    from fuzzfarm.harness.runone import outcome
    out = outcome("toy", "buggy", MAP_WRITES_INPUT, module="toy_harness")
    assert out["kind"] == "concurrent map writes" and out["object"] == "shared"
    assert out["racing_site"] == out["crash_state"][0]  # the other writer runs the same function


class _InProcessCLI:
    """The real ``fuzzfarm`` Typer app, run in this process (a subprocess per call costs seconds)."""

    def __init__(self, url: str):
        from typer.testing import CliRunner
        self.url, self.runner = url, CliRunner()

    def __call__(self, *args: str):
        from fuzzfarm.cli import app
        r = self.runner.invoke(app, ["--redis", self.url, *args])
        r.returncode = r.exit_code
        return r

    def json(self, *args: str):
        r = self(*args, "--json")
        assert r.exit_code == 0, r.stderr
        return json.loads(r.stdout)


def test_group_split_and_merge_through_the_cli(store):
    for b in DEMO:
        store.create_or_join_bucket(harness=b["harness"], variant="buggy", signature=b["id"], input_sha256=b["id"],
                                    fields={k: v for k, v in b.items() if k not in ("id", "harness", "variant")})
    cli = _InProcessCLI(store.url)
    rows = cli.json("crashes")
    by_sig = {r["signature"]: r for r in rows}
    assert len({by_sig[s]["group"] for s in ("s1", "s2", "s3")}) == 1
    assert by_sig["s1"]["group"] != by_sig["t1"]["group"] != by_sig["p3b"]["group"]
    text = cli("crashes").stdout
    assert text.index("ObjectChecker.stop") < text.index(by_sig["s1"]["id"])  # group row, then its buckets
    flat = cli("crashes", "--flat").stdout
    assert "groups of buckets" not in flat and by_sig["t5"]["id"] in flat
    flat_wide = cli("crashes", "--flat", "--wide").stdout  # the flat table names each bucket's group too
    assert by_sig["s1"]["group"] in flat_wide and by_sig["t1"]["group"] in flat_wide

    p = cli("group", "split", by_sig["s3"]["id"], "--name", "S3 dispose")
    assert p.returncode == 0, p.stderr
    rows = {r["signature"]: r for r in cli.json("crashes")}
    assert rows["s3"]["group"] != rows["s1"]["group"] and rows["s3"]["group_name"] == "S3 dispose"
    p = cli("group", "merge", rows["s1"]["group"], rows["s3"]["group"])
    assert p.returncode == 0, p.stderr
    rows = {r["signature"]: r for r in cli.json("crashes")}
    assert rows["s3"]["group"] == rows["s1"]["group"] == rows["s2"]["group"]
    assert len(rows) == len(DEMO) and all(store.bucket_inputs(r["id"]) for r in rows.values())  # nothing lost
    p = cli("group", "merge", "nope", rows["s1"]["group"])
    assert p.returncode == 2 and "no group or bucket 'nope'" in p.stderr
    assert json.loads(cli("crashes", "--json").stdout)  # still readable


def test_group_names_read_in_go_terms_and_keys_stay_on_python_names():
    """A group's name uses the Go functions the ports declare (the racing writer, the top frame);
    its id is still computed from the Python names, so declaring a port moves no group."""
    go = [
        {**DEMO[4], "go_racing_site": "cache.defaultOpts",
         "go_crash_state": ["cache.defaultOpts (cache.go:488)", "cache.New (cache.go:300)", "cluster.New (cluster.go:1)"]},
        {**DEMO[0], "go_crash_state": ["objectChecker.Stop (wait_for_controlled_pods.go:713)", "x (x.go:1)", "y"]},
    ]
    plain = group_buckets([DEMO[4], DEMO[0]])
    named = group_buckets(go)
    assert [g["id"] for g in named] == [g["id"] for g in plain]
    names = sorted(g["name"] for g in named)
    assert names[0] == "checker/buggy: goroutine panic (TypeError) in objectChecker.Stop"
    assert "racing with writes in cache.defaultOpts" in names[1] and "default_opts" not in names[1]


def test_a_hazard_labelled_with_another_context_stays_in_its_group():
    """A view labels a verdict decided under another bound; the bucket must keep its group (a
    fresh session saw one hazard bucket under two group ids, per-campaign and unscoped)."""
    from fuzzfarm.views import fix_label as fixed_cell
    from fuzzfarm.farm import recheck

    hz = {**DEMO[3], "fix_summary": "kept (hazard)"}
    labelled = recheck._labelled(hz, "under bound none")
    assert [g["id"] for g in group_buckets([labelled])] == [g["id"] for g in group_buckets([hz])]
    assert group_buckets([labelled])[0]["hazard"]
    assert fixed_cell(labelled) == "kept (hazard) (under bound none)"


def test_an_unnamed_maps_per_run_label_links_nothing():
    """``map#2`` is the second object a run made: in two scenarios, two different maps. Buckets
    are linked by the map's creation site (or declared name), never by that label."""
    two = [
        _b("o", "shop", "concurrent map writes", ["write_orders_b"], object="map#2", racing_site="write_orders_a",
           object_site="new_orders (shop.py:10)"),
        _b("u", "shop", "concurrent map writes", ["write_users_b"], object="map#2", racing_site="write_users_a",
           object_site="new_users (shop.py:20)"),
        # recorded before creation sites were: the serial label alone identifies nothing
        _b("o2", "shop", "concurrent map read and map write", ["read_orders"], object="map#2", racing_site="w9"),
        # the same map (creation site) raced by another writer: one bug with "o"
        _b("o3", "shop", "concurrent map writes", ["write_orders_c"], object="map#5", racing_site="write_orders_c",
           object_site="new_orders (shop.py:10)"),
    ]
    assert _ids(group_buckets(two)) == [["o", "o3"], ["u"], ["o2"]]
    assert "new_orders (shop.py:10)" in group_buckets(two)[0]["name"]


def test_every_table_a_script_reads_shows_the_fix_proof(store):
    """README: a bucket's fix proof is the ``fix:`` line of the narrow table and the ``proof``
    column with ``--wide``, grouped or flat. Piped (these runs), the tables are wide: the default
    grouped table once had no proof column, so a pipe lost the proof the terminal showed."""
    proof = "proven: no failure in all 42 schedules up to 2 preemptions"
    fields = {k: v for k, v in DEMO[0].items() if k not in ("id", "harness", "variant")}
    bid, *_ = store.create_or_join_bucket(harness="checker", variant="buggy", signature="s1", input_sha256="s1",
                                          fields={**fields, "fix_proof_line": proof, "fixed": True})
    cli = _InProcessCLI(store.url)
    for args in ((), ("--wide",), ("--wide", "--flat")):
        text = cli("crashes", *args).stdout
        head = next(ln for ln in text.splitlines() if "crash state" in ln)
        assert "proof" in head and proof in text, (args, text)
    assert cli.json("crashes")[0]["fix_proof_line"] == proof
