"""``pkg/cluster/cluster.go`` (controller-runtime v0.17.6): ``Options``, ``New``, ``setOptionsDefaults``.

kubernetes-sigs/controller-runtime@v0.17.6 (9557f1031fe4), ``pkg/cluster/cluster.go``:
``New`` 156-262 (the ``cacheOpts := options.Cache`` struct copy at :186, ``options.NewCache``
at :201), ``setOptionsDefaults`` 265-316.

``New`` starts from zero options and applies every ``Option`` func to them (:168-171). prow's
buggy ``BuildClusters`` passes one that overwrites them with a shared ``cluster.Options``
(``*o = options``, :class:`Options.assign` here): a struct copy, so ``Cache.DefaultNamespaces``
is still the one shared map when ``cache.New`` -> ``default_opts`` writes it.

Nothing here does network I/O: the HTTP client comes from client-go's transport cache (a
mutex), the REST mapper is lazy, and building the client, API reader and event recorder
provider is local. Errors are returned as values, as in Go.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

from fuzzfarm.gosim import go_func, not_ported

from . import apiutil, cache, client, goerrors, rest, struct_copy


@dataclasses.dataclass
class Options:
    """``cluster.Options`` (reduced). ``cache`` and ``client`` are struct-valued fields."""

    scheme: Any = None
    mapper_provider: Callable | None = None
    logger: Any = None
    sync_period: float | None = None
    http_client: Any = None
    cache: cache.Options = dataclasses.field(default_factory=cache.Options)
    new_cache: Callable | None = None
    client: client.Options = dataclasses.field(default_factory=client.Options)
    new_client: Callable | None = None
    event_broadcaster: Any = None
    make_broadcaster: Callable | None = None
    new_recorder_provider: Callable | None = None

    @not_ported("Go's struct copy: an assignment, not a function")
    def copy(self) -> "Options":
        """Go struct copy: nested structs copied, maps (and pointers) shared."""
        new = struct_copy(self)
        new.cache = self.cache.copy()
        new.client = self.client.copy()
        return new

    @not_ported("the statement *o = other")
    def assign(self, other: "Options") -> None:
        """``*o = other``: overwrite every field with a struct copy of ``other``."""
        self.__dict__.update(other.copy().__dict__)


Option = Callable[[Options], None]


@dataclasses.dataclass
class RecorderProvider:
    """``intrec.Provider`` (building it is local; the broadcaster starts lazily)."""

    host: str


@dataclasses.dataclass
class Cluster:
    """The built ``cluster`` (unstarted)."""

    config: rest.Config
    http_client: Any
    scheme: Any
    cache: Any
    client: Any
    api_reader: Any
    recorder_provider: RecorderProvider
    mapper: Any
    logger: Any


@go_func("recorder.NewProvider", "recorder.go:114")
def _new_recorder_provider(config, http_client, scheme, logger, make_broadcaster):
    return RecorderProvider(config.host), None


@go_func("cluster.setOptionsDefaults", "cluster.go:265")
def set_options_defaults(options: Options, config: rest.Config) -> tuple[Options, goerrors.Error | None]:
    """``setOptionsDefaults`` (:265-316). ``options`` arrives by value."""
    options = options.copy()
    if options.http_client is None:
        options.http_client, err = rest.http_client_for(config)
        if err is not None:
            return options, err
    if options.scheme is None:
        options.scheme = apiutil.SCHEME
    if options.mapper_provider is None:
        options.mapper_provider = apiutil.new_dynamic_rest_mapper
    if options.new_client is None:
        options.new_client = client.new
    if options.new_cache is None:
        options.new_cache = cache.new
    if options.new_recorder_provider is None:
        options.new_recorder_provider = _new_recorder_provider
    if options.event_broadcaster is None:
        options.make_broadcaster = lambda: ("broadcaster", True)
    if options.logger is None:
        options.logger = "cluster-logger"
    return options, None


@go_func("cluster.New", "cluster.go:156")
def new(config: rest.Config | None, *opts: Option) -> tuple[Cluster | None, goerrors.Error | None]:
    """``cluster.New`` (:156-262)."""
    if config is None:
        return None, goerrors.new("must specify Config")

    original_config = config
    config = rest.copy_config(config)
    if config.user_agent == "":
        config.user_agent = rest.default_kubernetes_user_agent()

    options = Options()
    for opt in opts:  # :168-171
        opt(options)
    options, err = set_options_defaults(options, config)
    if err is not None:
        return None, err

    mapper, err = options.mapper_provider(config, options.http_client)  # :179
    if err is not None:
        return None, err

    cache_opts = options.cache.copy()  # :186 - a struct copy: its maps are options.Cache's maps
    if cache_opts.scheme is None:
        cache_opts.scheme = options.scheme
    if cache_opts.mapper is None:
        cache_opts.mapper = mapper
    if cache_opts.http_client is None:
        cache_opts.http_client = options.http_client
    if cache_opts.sync_period is None:
        cache_opts.sync_period = options.sync_period
    the_cache, err = options.new_cache(config, cache_opts)  # :201
    if err is not None:
        return None, err

    client_opts = options.client.copy()
    if client_opts.scheme is None:
        client_opts.scheme = options.scheme
    if client_opts.mapper is None:
        client_opts.mapper = mapper
    if client_opts.http_client is None:
        client_opts.http_client = options.http_client
    if client_opts.cache is None:
        client_opts.cache = client.CacheOptions(unstructured=False)
    if client_opts.cache.reader is None:
        client_opts.cache.reader = the_cache
    client_writer, err = options.new_client(config, client_opts)
    if err is not None:
        return None, err

    # The API reader: a client without cache.
    client_reader, err = client.new(config, client.Options(
        http_client=options.http_client, scheme=options.scheme, mapper=mapper))
    if err is not None:
        return None, err

    recorder_provider, err = options.new_recorder_provider(
        original_config, options.http_client, options.scheme, options.logger, options.make_broadcaster)
    if err is not None:
        return None, err

    return Cluster(config=original_config, http_client=options.http_client, scheme=options.scheme,
                   cache=the_cache, client=client_writer, api_reader=client_reader,
                   recorder_provider=recorder_provider, mapper=mapper, logger=options.logger), None
