"""``pkg/cache/cache.go`` (controller-runtime v0.17.6): ``Options``, ``New``, ``defaultOpts``.

kubernetes-sigs/controller-runtime@v0.17.6 (tag commit 9557f1031fe4), ``pkg/cache/cache.go``:
``Options`` 137-230, ``ByObject`` and ``Config`` up to 300, ``New`` 306-347, ``defaultOpts``
393-496. In ``defaultOpts`` the ``ByObject`` loop is 422-473 (writes into
``byObject.Namespaces`` at :459 and into ``opts.ByObject`` at :472) and the
``DefaultNamespaces`` loop starts at :478 and **writes ``opts.DefaultNamespaces[namespace]``
at :488** - the frame of prow issue #288's ``fatal error: concurrent map writes``.

Go passes ``Options`` by value, so ``new`` and ``default_opts`` copy the struct on entry, but a
struct copy shares its maps: when every caller hands in options holding the same
``DefaultNamespaces`` map (prow before PR #299), every ``default_opts`` writes that one map.

Linked as ``V0_17_6_PR3078`` (see the package docstring), ``default_opts`` first rebinds
``opts.ByObject`` and ``opts.DefaultNamespaces`` to clones, and clones any ``Namespaces`` a
caller supplied in ``ByObject`` (controller-runtime PR #3078, a1adc6bdea73; test
``TestDefaultOptsRace`` in ``pkg/cache/defaulting_test.go``): later writes only hit private
copies, and the shared originals are only read.

Go map operations use :class:`fuzzfarm.gosim.Map` (race-checked, iteration order from the
schedule). A ``None`` map field is Go's nil map: ranging over it or reading it does nothing.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from fuzzfarm.gosim import Map, go_func, not_ported

from . import V0_17_6_PR3078, apiutil, goerrors, linked_version, rest, struct_copy
from .multi_namespace_cache import new_multi_namespace_cache

NAMESPACE_ALL = ""  # metav1.NamespaceAll
DEFAULT_SYNC_PERIOD = 10 * 3600.0  # defaultSyncPeriod: 10 h


@dataclasses.dataclass
class Config:
    """``cache.Config`` (:277-300): per-namespace settings; every field nullable."""

    label_selector: Any = None
    field_selector: Any = None
    transform: Any = None
    unsafe_disable_deep_copy: bool | None = None


@dataclasses.dataclass
class ByObject:
    """``cache.ByObject``: per-object settings; ``namespaces`` is a map ns -> Config (or nil)."""

    namespaces: Map | None = None
    label: Any = None
    field: Any = None
    transform: Any = None
    unsafe_disable_deep_copy: bool | None = None

    @not_ported("Go's struct copy: an assignment, not a function")
    def copy(self) -> "ByObject":
        """Go struct copy: the ``namespaces`` map is shared."""
        return struct_copy(self)


@dataclasses.dataclass
class Options:
    """``cache.Options`` (:137-230), the fields that matter here. ``copy`` is Go's struct copy:
    ``default_namespaces`` and ``by_object`` stay the same map objects."""

    http_client: Any = None
    scheme: Any = None
    mapper: Any = None
    sync_period: float | None = None
    default_namespaces: Map | None = None
    default_label_selector: Any = None
    default_field_selector: Any = None
    default_transform: Any = None
    default_unsafe_disable_deep_copy: bool | None = None
    by_object: Map | None = None
    default_watch_error_handler: Any = None
    reader_fail_on_missing_informer: bool = False

    @not_ported("Go's struct copy: an assignment, not a function")
    def copy(self) -> "Options":
        return struct_copy(self)


@dataclasses.dataclass
class InformerCache:
    """``informerCache`` over one namespace (building it does no I/O)."""

    namespace: str
    config: Config
    host: str


@dataclasses.dataclass
class DelegatingByGVKCache:
    """``delegatingByGVKCache``: a cache per ``ByObject`` GVK, the default cache for the rest."""

    scheme: Any
    caches: dict
    default_cache: Any


@go_func("maps.Clone", "maps.go:65")
def maps_clone(m: Map | None) -> Map | None:
    """``maps.Clone`` (a range over ``m``; nil stays nil)."""
    return None if m is None else m.clone(name=f"{m.label}.clone")


@go_func("maps.Keys", "maps.go:10")
def maps_keys(m: Map) -> list:
    """``maps.Keys`` (a range over ``m``)."""
    return list(m.keys())


@go_func("cache.defaultConfig", "cache.go:498")
def default_config(to_default: Config, default_from: Config) -> Config:
    """``defaultConfig``: fill ``to_default``'s nil fields from ``default_from`` (a new value)."""
    out = struct_copy(to_default)
    if out.label_selector is None:
        out.label_selector = default_from.label_selector
    if out.field_selector is None:
        out.field_selector = default_from.field_selector
    if out.transform is None:
        out.transform = default_from.transform
    if out.unsafe_disable_deep_copy is None:
        out.unsafe_disable_deep_copy = default_from.unsafe_disable_deep_copy
    return out


@go_func("cache.optionDefaultsToConfig", "cache.go:349")
def option_defaults_to_config(opts: Options) -> Config:
    """``optionDefaultsToConfig``."""
    return Config(opts.default_label_selector, opts.default_field_selector, opts.default_transform,
                  opts.default_unsafe_disable_deep_copy)


@go_func("cache.byObjectToConfig", "cache.go:358")
def by_object_to_config(bo: ByObject) -> Config:
    """``byObjectToConfig``."""
    return Config(bo.label, bo.field, bo.transform, bo.unsafe_disable_deep_copy)


@go_func("cache.namespaceAllSelector", "cache.go:515")
def namespace_all_selector(namespaces: list) -> list[str]:
    """``namespaceAllSelector``: ``metadata.namespace!=ns`` for every named namespace, sorted."""
    return [f"metadata.namespace!={ns}" for ns in sorted(namespaces) if ns != NAMESPACE_ALL]


@go_func("cache.appendIfNotNil", "cache.go:527")
def _and_selectors(selectors: list, extra: Any) -> str:
    """``fields.AndSelectors(appendIfNotNil(selectors, extra)...)``."""
    parts = list(selectors) + ([extra] if extra is not None else [])
    return ",".join(parts)


@go_func("cache.defaultOpts", "cache.go:393")
def default_opts(config: rest.Config, opts: Options) -> tuple[Options, goerrors.Error | None]:
    """``defaultOpts`` (:393-496). ``opts`` arrives by value; its maps are the caller's."""
    opts = opts.copy()
    config = rest.copy_config(config)
    if config.user_agent == "":
        config.user_agent = rest.default_kubernetes_user_agent()

    # Use the rest HTTP client for the provided config if unset.
    if opts.http_client is None:
        opts.http_client, err = rest.http_client_for(config)
        if err is not None:
            return Options(), goerrors.wrap("could not create HTTP client from config", err)

    if opts.scheme is None:
        opts.scheme = apiutil.SCHEME

    if opts.mapper is None:
        opts.mapper, err = apiutil.new_dynamic_rest_mapper(config, opts.http_client)
        if err is not None:
            return Options(), goerrors.wrap("could not create RESTMapper from config", err)

    pr3078 = linked_version() == V0_17_6_PR3078
    if pr3078:
        # PR #3078: work on private copies; the caller's maps are only read from here on.
        opts.by_object = maps_clone(opts.by_object)
        opts.default_namespaces = maps_clone(opts.default_namespaces)

    if opts.by_object is not None:
        for obj, by_object in opts.by_object.items():  # :422
            by_object = by_object.copy()  # the range value is a struct copy
            is_namespaced, err = apiutil.is_object_namespaced(obj, opts.scheme, opts.mapper)
            if err is not None:
                return opts, goerrors.wrap(f"failed to determine if {obj!r} is namespaced", err)
            if not is_namespaced and by_object.namespaces is not None:
                return opts, goerrors.new(f"type {obj!r} is not namespaced, but its ByObject.Namespaces setting is not nil")

            if is_namespaced and by_object.namespaces is None:
                by_object.namespaces = maps_clone(opts.default_namespaces)  # :432, reads DefaultNamespaces
            elif pr3078:
                by_object.namespaces = maps_clone(by_object.namespaces)

            # Namespace-level configs first: they fall through to DefaultNamespaces settings.
            if by_object.namespaces is not None:
                for namespace, cfg in by_object.namespaces.items():
                    cfg = default_config(cfg, by_object_to_config(by_object))
                    if opts.default_namespaces is not None:
                        dns, has = opts.default_namespaces.lookup(namespace)  # a map read
                        if has:
                            cfg = default_config(cfg, dns)
                    cfg = default_config(cfg, option_defaults_to_config(opts))
                    if namespace == NAMESPACE_ALL:
                        cfg.field_selector = _and_selectors(
                            namespace_all_selector(maps_keys(by_object.namespaces)), cfg.field_selector)
                    by_object.namespaces[namespace] = cfg  # :459 (the caller's map if it supplied one)

            # Default ByObject itself only if it is cluster-scoped or has no namespaces.
            if not is_namespaced or by_object.namespaces is None or len(by_object.namespaces) == 0:
                d = default_config(by_object_to_config(by_object), option_defaults_to_config(opts))
                by_object.label = d.label_selector
                by_object.field = d.field_selector
                by_object.transform = d.transform
                by_object.unsafe_disable_deep_copy = d.unsafe_disable_deep_copy

            opts.by_object[obj] = by_object  # :472

    # Default namespaces after ByObject, which may have copied them undefaulted.
    if opts.default_namespaces is not None:
        for namespace, cfg in opts.default_namespaces.items():  # :478
            cfg = default_config(cfg, option_defaults_to_config(opts))
            if namespace == NAMESPACE_ALL:
                cfg.field_selector = _and_selectors(
                    namespace_all_selector(maps_keys(opts.default_namespaces)), cfg.field_selector)
            opts.default_namespaces[namespace] = cfg  # :488 - written even when unchanged

    if opts.sync_period is None:
        opts.sync_period = DEFAULT_SYNC_PERIOD
    return opts, None


@go_func("cache.newCache", "cache.go:369")
def new_cache(rest_config: rest.Config, opts: Options):
    """``newCache``: the per-namespace informer-cache constructor (no I/O)."""
    @go_func("cache.newCache.func1", "cache.go:370")
    def build(config: Config, namespace: str) -> InformerCache:
        return InformerCache(namespace, config, rest_config.host)
    return build


@go_func("cache.New", "cache.go:306")
def new(cfg: rest.Config, opts: Options) -> tuple[Any, goerrors.Error | None]:
    """``cache.New`` (:306-347)."""
    opts, err = default_opts(cfg, opts)  # :307
    if err is not None:
        return None, err

    new_cache_func = new_cache(cfg, opts)

    if opts.default_namespaces is not None and len(opts.default_namespaces) > 0:
        default_cfg = option_defaults_to_config(opts)
        default_cache = new_multi_namespace_cache(new_cache_func, opts.scheme, opts.mapper,
                                                  opts.default_namespaces, default_cfg)  # :317
    else:
        default_cache = new_cache_func(option_defaults_to_config(opts), NAMESPACE_ALL)

    if opts.by_object is None or len(opts.by_object) == 0:
        return default_cache, None

    delegating = DelegatingByGVKCache(opts.scheme, {}, default_cache)
    for obj, config in opts.by_object.items():  # :332-344
        gvk, err = apiutil.gvk_for_object(obj, opts.scheme)
        if err is not None:
            return None, goerrors.wrap(f"failed to get GVK for type {obj!r}", err)
        if config.namespaces is not None and len(config.namespaces) > 0:
            c = new_multi_namespace_cache(new_cache_func, opts.scheme, opts.mapper, config.namespaces, None)
        else:
            c = new_cache_func(by_object_to_config(config), NAMESPACE_ALL)
        delegating.caches[gvk] = c
    return delegating, None
