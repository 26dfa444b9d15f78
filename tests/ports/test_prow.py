"""prow ``BuildClusters`` over controller-runtime ``cluster.New``: normal behaviour, the hand-written
interleavings T1/T2/T3 of docs/ports/prow.md#interleavings on every variant, and its hazards H3/H4/H5/H6."""

from __future__ import annotations

import random

import pytest

from fuzzfarm import gosim
from fuzzfarm.gosim import ConcurrentMapIterationWrite, ConcurrentMapWrites
from fuzzfarm.ports import controller_runtime as cr
from fuzzfarm.ports.controller_runtime import apiutil, cache, cluster, rest
from fuzzfarm.ports.prow import kubernetes_cluster_clients as kcc
from fuzzfarm.ports.prow.utilerrors import Aggregate
from fuzzfarm.strategies import BytesStrategy, stay_index

VERBS = ("delete", "list", "watch", "get", "patch")
NS = "test-pods"
# (prow revision, linked controller-runtime) per harness variant
VARIANTS = {
    "buggy": (kcc.BUGGY, cr.V0_17_6),
    "fixed": (kcc.FIXED, cr.V0_17_6),
    "library-fixed": (kcc.BUGGY, cr.V0_17_6_PR3078),
}
MAP_FAILURES = ("concurrent map writes", "concurrent map iteration and map write", "concurrent map read and map write")


def run_build(clusters, variant="buggy", *, strategy=None, dry_run=False, opts=(), observe=0.0, trace=False,
              check_leaks=False, calls=None):
    """Run ``build_clusters`` as goroutine 1 over fake clusters ``[(name, FakeAPIServer kwargs)]``.

    Returns (report, seen): ``seen`` has ``res``, ``err``, ``callbacks`` (virtual times),
    ``servers``, ``o`` (the KubernetesOptions)."""
    revision, library = VARIANTS[variant]
    seen = {"callbacks": [], "returned": False}

    def main():
        cr.link(library)
        servers = {name: rest.FakeAPIServer(name, **kw) for name, kw in clusters}
        seen["servers"] = servers

        def load():
            return gosim.Map({n: rest.Config(host=s.host, server=s) for n, s in servers.items()}, name="clusterConfigs"), None

        o = kcc.KubernetesOptions(load, revision)
        seen["o"] = o
        res, err = o.build_clusters(dry_run, list(VERBS), lambda: seen["callbacks"].append(gosim.now()), NS, *opts)
        seen.update(returned=True, res=res, err=err)
        if observe:
            gosim.sleep(observe)

    rep = gosim.run(main, strategy=strategy if strategy is not None else BytesStrategy(b""), trace=trace,
                    check_leaks=check_leaks, race=False)  # the harness's default (cluster_builder_race.RACE)
    return rep, seen


def random_schedules(n, seed=0, max_len=80):
    rng = random.Random(seed)
    for _ in range(n):
        yield BytesStrategy(bytes(rng.randrange(256) for _ in range(rng.randrange(max_len))))


class Scripted:
    """A hand-written schedule, readable as "run G until it reaches this point, then switch".

    Runs goroutine ``focus`` whenever it is runnable (otherwise whoever was running, or the
    lowest id). ``script`` is a list of breakpoints ``(gid, event kind, detail or site substring,
    next focus)``: when goroutine ``gid`` reaches a scheduling point whose trace event matches,
    focus moves. Needs ``trace=True`` (the events name each scheduling point)."""

    def __init__(self, script, focus=1):
        self.script = list(script)
        self.focus = focus
        self.rt = None

    def begin(self, rt):
        self.rt = rt

    def pick(self, runnable, current, timer):
        ev = self.rt.trace.events[-1]
        if self.script:
            gid, kind, where, nxt = self.script[0]
            if ev.gid == gid and ev.kind == kind and (where in ev.detail or ev.site.startswith(where)):
                self.script.pop(0)
                self.focus = nxt
        for i, g in enumerate(runnable):
            if g.gid == self.focus:
                return i
        return stay_index(runnable, current)

    def pick_index(self, n, what):
        return 0


M = "DefaultNamespaces"
# G1 = main; G2 builds "a", G3 builds "b" (the range over the two contexts starts at "a").
T1 = [(2, "map.write.enter", M, 3),  # G2 starts its :488 write, before the entry check
      (3, "map.write", M, 2)]  # G3 is inside its :488 write (flag set) -> G2 enters its write
T2 = [(2, "map.write.begin", M, 3),  # G2 passed the write's entry check, not yet toggled
      (3, "map.write.begin", M, 2),  # G3 passed it too
      (2, "map.write", M, 3),  # G2 toggled: flag set
      (3, "map.write", M, 2)]  # G3 toggled: flag clear again -> G2's exit check
T3 = [(2, "map.write", M, 3)]  # G2 inside its write -> G3 takes its first :478 iteration step
T3_MULTI = [(1, "block", "sync.WaitGroup.Wait", 3),  # main waits: G3 first ...
            (3, "map.iter", "cache.newMultiNamespaceCache", 2),  # ... to newMultiNamespaceCache's range
            (2, "map.write", M, 3)]  # G2 inside its write -> G3's iteration step


def scripted(script, variant):
    s = Scripted(script)
    rep, seen = run_build([("a", {}), ("b", {})], variant, strategy=s, trace=True)
    return rep, seen, s


def last_map_event(rep, gid):
    evs = [e for e in rep.trace.events if e.gid == gid and e.kind.startswith("map.")]
    return evs[-1]


# ---------------------------------------------------------------------------- T1 / T2 / T3
@pytest.mark.parametrize("name,script,kind,gid,where", [
    ("T1", T1, ConcurrentMapWrites, 2, "map.write.enter"),  # entry check: its write had just started
    ("T2", T2, ConcurrentMapWrites, 2, "map.write"),  # exit check: it was inside the write
    ("T3", T3, ConcurrentMapIterationWrite, 3, "map.iter"),
    ("T3 in newMultiNamespaceCache", T3_MULTI, ConcurrentMapIterationWrite, 3, "map.iter"),
])
def test_hand_written_interleavings_crash_buggy(name, script, kind, gid, where):
    rep, seen, s = scripted(script, "buggy")
    f = rep.failure
    assert isinstance(f, kind), f
    assert s.script == [], f"{name}: script not consumed: {s.script}"
    assert f.goroutine == gid and f.goroutine_name == ("BuildClusters.func1(a)" if gid == 2 else "BuildClusters.func1(b)")
    top = "new_multi_namespace_cache" if "Multi" in name else "default_opts"
    assert f.crash_state == [top, "new", "new"]
    assert [fr.file for fr in f.stack[:3]] == [f"{'multi_namespace_cache' if 'Multi' in name else 'cache'}.py",
                                               "cache.py", "cluster.py"]
    assert f.stack[3].func == "KubernetesOptions._build_one"
    assert last_map_event(rep, gid).kind == where
    # the other goroutine is parked inside / right after its write, and main waits in threads.Wait()
    waits = {d.gid: d.wait for d in f.dumps}
    assert waits[1] == "sync.WaitGroup.Wait"
    assert not seen["returned"]


def test_t1_fails_at_cache_go_488_write_entry():
    rep, _, _ = scripted(T1, "buggy")
    line = rep.failure.stack[0].line
    src = open(cache.__file__).read().splitlines()[line - 1]
    assert "# :488" in src and "default_namespaces[namespace] = cfg" in src


@pytest.mark.parametrize("variant", ["fixed", "library-fixed"])
@pytest.mark.parametrize("script", [T1, T2, T3, T3_MULTI], ids=["T1", "T2", "T3", "T3-multi"])
def test_hand_written_interleavings_pass_on_fixed_variants(variant, script):
    rep, seen, s = scripted(script, variant)
    assert rep.failure is None, rep.failure
    if variant == "fixed":
        # The same interleaving happened, on maps that are private to each goroutine.
        assert s.script == []
    assert seen["err"] is None and sorted(seen["res"].snapshot()) == ["a", "b"]


# ---------------------------------------------------------------------------- normal behaviour
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_one_cluster_never_fails(variant):
    opts_variants = [(), (by_object_opt("by-object"),), (by_object_opt("namespaces"),), (by_object_opt("cluster-scoped"),)]
    for i, strat in enumerate(random_schedules(300, seed=7)):
        rep, seen = run_build([("build01", {})], variant, strategy=strat, opts=opts_variants[i % 4])
        assert rep.failure is None, (i, rep.failure)
        assert seen["err"] is None and list(seen["res"].snapshot()) == ["build01"]


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_clusters_are_built_and_caches_defaulted(variant):
    rep, seen = run_build([("build01", {}), ("build02", {}), ("build11", {})], variant)
    assert rep.failure is None and seen["err"] is None
    res = seen["res"].snapshot()
    assert sorted(res) == ["build01", "build02", "build11"]
    for name, c in res.items():
        assert c.config.host == f"https://{name}.example:6443"
        assert list(c.cache.namespace_to_cache) == [NS]
        assert c.cache.namespace_to_cache[NS].config == cache.Config()
        assert c.cache.cluster_cache.namespace == ""
        assert c.client.dry_run is False


def test_buggy_shares_one_default_namespaces_map_and_fixed_does_not():
    """Observe the maps every default_opts wrote: one for buggy, one per cluster for fixed."""
    written = {}
    orig = cache.default_opts

    def spy(config, opts):
        written.setdefault(config.host, opts.default_namespaces)
        return orig(config, opts)

    names = [("a", {}), ("b", {}), ("c", {})]
    for variant in ("buggy", "fixed"):
        written.clear()
        cache.default_opts, saved = spy, cache.default_opts
        try:
            rep, _ = run_build(names, variant)
        finally:
            cache.default_opts = saved
        assert rep.failure is None
        maps = list(written.values())
        assert len(maps) == 3
        distinct = sum(1 for i, m in enumerate(maps) if all(m is not o for o in maps[:i]))
        assert distinct == (1 if variant == "buggy" else 3)


def test_library_fixed_never_writes_the_shared_map():
    for strat in random_schedules(200, seed=3):
        rep, seen = run_build([("a", {}), ("b", {}), ("c", {})], "library-fixed", strategy=strat,
                              opts=(by_object_opt("namespaces"),))
        assert rep.failure is None, rep.failure


@pytest.mark.parametrize("variant", ["fixed", "library-fixed"])
def test_fixed_variants_never_show_map_failures_under_random_schedules(variant):
    rng = random.Random(11)
    kinds = ["by-object", "namespaces", "cluster-scoped"]
    for i, strat in enumerate(random_schedules(400, seed=5)):
        clusters = [(n, {"reachable": rng.random() < 0.8}) for n in ("a", "b", "c", "d")[: 2 + i % 3]]
        opts = () if i % 2 else (by_object_opt(kinds[i % 3]),)
        rep, _ = run_build(clusters, variant, strategy=strat, opts=opts, observe=6.0)
        assert rep.failure is None, (i, rep.failure)


def test_buggy_random_schedules_reach_all_three_flavours():
    kinds = set()
    for strat in random_schedules(600, seed=2):
        rep, _ = run_build([("a", {}), ("b", {}), ("c", {})], "buggy", strategy=strat)
        if rep.failure is not None:
            assert rep.failure.kind in MAP_FAILURES
            kinds.add((rep.failure.kind, rep.failure.crash_state[0]))
    assert {("concurrent map writes", "default_opts"),
            ("concurrent map iteration and map write", "default_opts"),
            ("concurrent map iteration and map write", "new_multi_namespace_cache")} <= kinds


def by_object_opt(kind):
    def opt(o: cluster.Options):
        if kind == "by-object":
            bo = {apiutil.POD: cache.ByObject(label="app=x")}
        elif kind == "namespaces":
            bo = {apiutil.POD: cache.ByObject(namespaces=gosim.Map({NS: cache.Config(label_selector="app=x")}))}
        else:
            bo = {apiutil.POD: cache.ByObject(label="app=x"), apiutil.NODE: cache.ByObject(label="role=w")}
        o.cache.by_object = gosim.Map(bo, name="ByObject")
    return opt


def test_buggy_with_by_object_options_also_races_on_the_map_read():
    """With ByObject entries, default_opts reads DefaultNamespaces (the lookup in the ByObject
    loop) while another goroutine writes it at :488: ``concurrent map read and map write``."""
    seen_kinds, states = set(), set()
    for strat in random_schedules(1500, seed=9):
        rep, _ = run_build([("a", {}), ("b", {}), ("c", {})], "buggy", strategy=strat, opts=(by_object_opt("by-object"),))
        if rep.failure is not None:
            assert rep.failure.kind in MAP_FAILURES
            seen_kinds.add(rep.failure.kind)
            states.add(tuple(rep.failure.crash_state))
    assert seen_kinds == set(MAP_FAILURES)
    # H7: besides DefaultNamespaces, the shared ByObject map is written (:472) while another
    # goroutine ranges over it in default_opts (:422) or in cache.New (:332).
    assert {("default_opts", "new", "new"), ("new", "new", "KubernetesOptions._build_one")} <= states


def test_caller_opts_run_once_in_buggy_and_once_per_cluster_in_fixed():
    calls = []

    def opt(o):
        calls.append(gosim.goroutine_id())

    for variant, expect in (("buggy", [1]), ("fixed", [2, 3, 4])):
        calls.clear()
        rep, _ = run_build([("a", {}), ("b", {}), ("c", {})], variant, opts=(opt,))
        assert rep.failure is None
        assert sorted(calls) == expect  # fixed: inside each cluster goroutine (docs/ports/prow.md#h1)


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_dry_run_client_and_resolve_quirk(variant):
    rep, seen = run_build([("a", {})], variant, dry_run=True)
    assert rep.failure is None
    assert seen["res"].snapshot()["a"].client.dry_run is True
    o = seen["o"]
    assert o.resolved is False  # dry-run never latches (H5)


def test_resolve_reloads_in_dry_run_and_latches_otherwise():
    loads = []

    def main():
        def load():
            loads.append(1)
            s = rest.FakeAPIServer("a")
            return gosim.Map({"a": rest.Config(host=s.host, server=s)}), None

        for dry in (True, False):
            loads.clear()
            o = kcc.KubernetesOptions(load)
            first, _ = o.known_clusters(dry)
            second, _ = o.known_clusters(dry)
            assert (first is second) is (not dry)
            assert len(loads) == (2 if dry else 1)

    assert gosim.run(main, strategy=BytesStrategy(b"")).failure is None


def test_invalid_kubeconfig_fails_resolve_before_any_goroutine():
    def main():
        s = rest.FakeAPIServer("bad")

        def load():
            return gosim.Map({"ok": rest.Config(host="https://ok"), "bad": rest.Config(host=s.host, tls_error="unable to load root certificates")}), None

        o = kcc.KubernetesOptions(load)
        res, err = o.build_clusters(False, list(VERBS), lambda: None, NS)
        assert res is None and str(err) == "create bad kubernetes client: unable to load root certificates"

    rep = gosim.run(main, strategy=BytesStrategy(b""))
    assert rep.failure is None and rep.goroutines == 1


# ---------------------------------------------------------------------------- errors, retries, hazards
def test_errors_are_aggregated_as_a_set_whatever_the_completion_order():
    clusters = [("build01", {"reachable": False}), ("build02", {"denied_verb": "list"}),
                ("build11", {}), ("vsphere02", {"denied_verb": "patch"})]
    texts, sets = set(), set()
    for strat in random_schedules(150, seed=4):
        rep, seen = run_build(clusters, "buggy" if strat.data[:1] < b"\x80" else "fixed", strategy=strat)
        if rep.failure is not None:
            assert rep.failure.kind in MAP_FAILURES
            continue
        err = seen["err"]
        assert isinstance(err, Aggregate)
        assert sorted(seen["res"].snapshot()) == ["build11"]
        texts.add(str(err))
        sets.add(err.messages())
    assert len(sets) == 1
    refused = ('Post "https://build01.example:6443/apis/authorization.k8s.io/v1/selfsubjectaccessreviews": '
               'dial tcp build01:6443: connect: connection refused')
    assert sets.pop() == {
        # five verbs refused the same way: the inner aggregate prints the text once
        f"failed pod resource authorization check for cluster build01: {refused}",
        'failed pod resource authorization check for cluster build02: missing permissions: unable to "list" pods',
        'failed pod resource authorization check for cluster vsphere02: missing permissions: unable to "patch" pods',
    }
    assert len(texts) > 1  # the aggregate's text follows completion order (H6)


def test_unreachable_cluster_with_by_object_fails_in_construction():
    rep, seen = run_build([("a", {"reachable": False}), ("b", {})], "fixed", opts=(by_object_opt("by-object"),))
    assert rep.failure is None
    assert str(seen["err"]) == ('failed to construct cluster a: failed to determine if *v1.Pod is namespaced: '
                                'failed to get restmapping: Get "https://a.example:6443/api/v1": '
                                'dial tcp a:6443: connect: connection refused')


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_retry_goroutine_calls_back_once_a_failed_cluster_recovers(variant):
    # a is unreachable until t=6 s; the retry goroutine passes at t=0, 5, 10, 15.
    rep, seen = run_build([("a", {"reachable": False, "recover_at": 6.0}), ("b", {})], variant, observe=16.0)
    assert rep.failure is None
    assert sorted(seen["res"].snapshot()) == ["b"]
    assert seen["callbacks"] == [10.0, 15.0]  # first pass after recovery, then every pass (H3)


def test_retry_goroutine_never_calls_back_for_a_cluster_that_stays_down():
    rep, seen = run_build([("a", {"reachable": False}), ("b", {"denied_verb": "get", "recover_at": 1.0})], "buggy",
                          observe=16.0)
    assert rep.failure is None
    assert seen["callbacks"] == [5.0, 10.0, 15.0]  # only b, from the pass after t=1


def test_no_retry_goroutine_without_errors():
    rep, seen = run_build([("a", {}), ("b", {})], "buggy", observe=16.0, check_leaks=True)
    assert rep.failure is None and rep.goroutines == 3


def test_retry_goroutine_leaks_h3():
    rep, seen = run_build([("a", {"reachable": False})], "fixed", observe=1.0, check_leaks=True)
    f = rep.failure
    assert f is not None and f.kind == "goroutine leak"
    assert f.goroutine_name == "BuildClusters.func2(retry)"
    assert f.crash_state == ["KubernetesOptions._retry_failed"]


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_hung_authorization_check_blocks_build_clusters_forever_h4(variant):
    rep, seen = run_build([("a", {"hang_verb": "watch"}), ("b", {})], variant)
    f = rep.failure
    assert isinstance(f, gosim.Deadlock)  # all asleep in the simulation; a network wait in Go
    assert not seen["returned"]
    hung = seen["servers"]["a"].hung
    assert len(hung) == 1
    dump = {d.gid: d for d in f.dumps}[hung[0]]
    assert [fr.func for fr in dump.stack[:3]] == ["FakeAPIServer.create_ssar", "SelfSubjectAccessReviews.create",
                                                  "check_authorizations"]
    verbs = [w for (_, g, w) in seen["servers"]["a"].requests if g == hung[0]]
    assert verbs[-1] == "POST ssar watch (no answer, ever)" and len(verbs) == 3  # delete, list answered
