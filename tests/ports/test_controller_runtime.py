"""controller-runtime v0.17.6 port: Go struct-copy semantics of the options, ``default_opts``
defaulting (DefaultNamespaces, NamespaceAll, ByObject), ``cache.new`` / ``cluster.new`` error
paths, and PR #3078's clones (the analogue of its regression test ``TestDefaultOptsRace``)."""

from __future__ import annotations

import random

import pytest

from fuzzfarm import gosim
from fuzzfarm.ports import controller_runtime as cr
from fuzzfarm.ports.controller_runtime import apiutil, cache, client, cluster, rest
from fuzzfarm.strategies import BytesStrategy


def in_run(fn, strategy=None, version=cr.V0_17_6):
    """Run ``fn()`` as main; return (its result, the run's failure)."""
    box = {}

    def main():
        cr.link(version)
        box["r"] = fn()

    rep = gosim.run(main, strategy=strategy if strategy is not None else BytesStrategy(b""), check_leaks=False)
    return box.get("r"), rep.failure


def config(name="a", **kw):
    s = rest.FakeAPIServer(name, **kw)
    return rest.Config(host=s.host, server=s)


def test_struct_copies_share_maps_but_not_structs():
    def body():
        m = gosim.Map({"ns": cache.Config()}, name="M")
        o = cluster.Options(cache=cache.Options(default_namespaces=m))
        c = o.copy()
        assert c.cache is not o.cache and c.cache.default_namespaces is m
        target = cluster.Options()
        target.assign(o)  # *target = o
        assert target.cache is not o.cache and target.cache.default_namespaces is m
        target.cache.sync_period = 5.0
        assert o.cache.sync_period is None
        return True

    assert in_run(body) == (True, None)


def test_default_opts_writes_the_callers_map_in_v0_17_6_and_not_with_pr3078():
    def body():
        m = gosim.Map({"ns": cache.Config(), "other": cache.Config(label_selector="x=y")}, name="M")
        opts = cache.Options(default_namespaces=m, default_label_selector="app=prow")
        out, err = cache.default_opts(config(), opts)
        assert err is None
        return m.snapshot(), out.default_namespaces is m, out.default_namespaces.snapshot(), out.sync_period

    (seen, same, defaulted, sync), f = in_run(body)
    assert f is None and same and sync == cache.DEFAULT_SYNC_PERIOD
    assert seen == defaulted == {"ns": cache.Config(label_selector="app=prow"), "other": cache.Config(label_selector="x=y")}

    (seen, same, defaulted, _), f = in_run(body, version=cr.V0_17_6_PR3078)
    assert f is None and not same
    assert seen == {"ns": cache.Config(), "other": cache.Config(label_selector="x=y")}  # untouched
    assert defaulted == {"ns": cache.Config(label_selector="app=prow"), "other": cache.Config(label_selector="x=y")}


def test_namespace_all_gets_an_exclusion_selector():
    def body():
        m = gosim.Map({"": cache.Config(), "b": cache.Config(), "a": cache.Config()})
        out, err = cache.default_opts(config(), cache.Options(default_namespaces=m))
        return out.default_namespaces.snapshot()[""].field_selector

    assert in_run(body) == ("metadata.namespace!=a,metadata.namespace!=b", None)


def test_by_object_defaulting():
    def body():
        m = gosim.Map({"ns": cache.Config(label_selector="from=defaultns")}, name="M")
        bo = gosim.Map({apiutil.POD: cache.ByObject(label="app=pod"), apiutil.NODE: cache.ByObject()}, name="ByObject")
        out, err = cache.default_opts(config(), cache.Options(default_namespaces=m, by_object=bo,
                                                              default_field_selector="f=g"))
        assert err is None
        pod = out.by_object.snapshot()[apiutil.POD]
        node = out.by_object.snapshot()[apiutil.NODE]
        return pod.namespaces.snapshot(), pod.namespaces is m, node

    (ns, same, node), f = in_run(body)
    assert f is None and not same  # a clone of DefaultNamespaces
    # the cloned namespace-level config keeps its own label; nil fields fall through to the
    # type level, then to the global defaults
    assert ns == {"ns": cache.Config(label_selector="from=defaultns", field_selector="f=g")}
    assert node.namespaces is None and node.field == "f=g"  # cluster-scoped: defaulted itself


@pytest.mark.parametrize("obj,bo,msg", [
    (apiutil.NODE, "namespaces", "type *v1.Node is not namespaced, but its ByObject.Namespaces setting is not nil"),
    (apiutil.Object("Widget"), None, "failed to determine if *v1.Widget is namespaced: no kind is registered"),
])
def test_by_object_errors(obj, bo, msg):
    def body():
        b = cache.ByObject(namespaces=gosim.Map({"x": cache.Config()})) if bo else cache.ByObject()
        _, err = cache.default_opts(config(), cache.Options(by_object=gosim.Map({obj: b})))
        return str(err)

    err, f = in_run(body)
    assert f is None and err.startswith(msg)


def test_discovery_failure_fails_cluster_new_and_recovers_later():
    def body():
        cfg = config(reachable=False, recover_at=5.0)
        opt = lambda o: setattr(o.cache, "by_object", gosim.Map({apiutil.POD: cache.ByObject()}))  # noqa: E731
        first = cluster.new(cfg, opt)
        gosim.sleep(6)
        second = cluster.new(cfg, opt)
        return first, second

    ((c1, e1), (c2, e2)), f = in_run(body)
    assert f is None and c1 is None and "failed to determine if *v1.Pod is namespaced" in str(e1)
    assert e2 is None and set(c2.cache.caches) == {"/v1, Kind=Pod"}


def test_cluster_new_error_paths_and_result():
    def body():
        nil = cluster.new(None)
        bad = cluster.new(rest.Config(host="https://bad", tls_error="unable to load root certificates"))
        dry = cluster.new(config(), lambda o: setattr(o.client, "dry_run", client.Pointer.to_value(True)))
        plain = cluster.new(config())
        return nil, bad, dry, plain

    (nil, bad, dry, plain), f = in_run(body)
    assert f is None
    assert nil[0] is None and str(nil[1]) == "must specify Config"
    assert str(bad[1]) == "unable to load root certificates"
    assert dry[0].client.dry_run is True and plain[0].client.dry_run is False
    c = plain[0]
    assert isinstance(c.cache, cache.InformerCache) and c.cache.namespace == ""  # no DefaultNamespaces: one cache
    assert c.config.user_agent == ""  # cluster.New defaults the user agent on its own copy only


def test_default_opts_race_like_pr3078_regression_test():
    """Two goroutines run default_opts on one Options value with both maps set (controller-runtime
    ``TestDefaultOptsRace``): v0.17.6 fails under some schedules, PR #3078 never does."""

    def body():
        opts = cache.Options(
            default_namespaces=gosim.Map({"ns1": cache.Config(), "ns2": cache.Config()}, name="DefaultNamespaces"),
            by_object=gosim.Map({apiutil.POD: cache.ByObject()}, name="ByObject"))
        wg = gosim.WaitGroup()
        for _ in range(2):
            wg.add(1)

            def run():
                try:
                    cache.default_opts(config(), opts)
                finally:
                    wg.done()

            gosim.go(run)
        wg.wait()

    rng = random.Random(1)
    kinds = {cr.V0_17_6: set(), cr.V0_17_6_PR3078: set()}
    for _ in range(300):
        data = bytes(rng.randrange(256) for _ in range(rng.randrange(60)))
        for version in kinds:
            _, f = in_run(body, BytesStrategy(data), version)
            if f is not None:
                kinds[version].add(f.kind)
    assert kinds[cr.V0_17_6] >= {"concurrent map writes", "concurrent map iteration and map write"}
    assert kinds[cr.V0_17_6_PR3078] == set()
