"""``pkg/client`` (controller-runtime v0.17.6): ``client.Options`` and ``client.New``, reduced.

``Options.DryRun`` is a ``*bool``; :class:`Pointer` models it: prow's buggy code points it at
the ``KubernetesOptions.dryRun`` field, the fixed code at the ``dryRun`` argument. ``New``
dereferences it once, at construction (``ptr.Deref(options.DryRun, false)``).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

from fuzzfarm.gosim import go_func, not_ported

from . import goerrors, struct_copy
from .rest import Config


class Pointer:
    """A Go pointer ``*T``: ``get()`` reads the pointee at the time of the call."""

    __slots__ = ("_get", "label")

    @not_ported("a Go pointer *T, modelled: Go needs no function for it")
    def __init__(self, get: Callable[[], Any], label: str):
        self._get = get
        self.label = label

    @classmethod
    @not_ported("the expression &obj.field")
    def to_field(cls, obj: Any, attr: str) -> "Pointer":
        """``&obj.attr``."""
        return cls(lambda: getattr(obj, attr), f"&{type(obj).__name__}.{attr}")

    @classmethod
    @not_ported("the expression &v")
    def to_value(cls, value: Any, label: str = "&v") -> "Pointer":
        """``&v`` for a variable nobody reassigns afterwards."""
        return cls(lambda: value, label)

    @not_ported("the expression *p")
    def get(self) -> Any:
        return self._get()

    @not_ported("how the port prints a pointer")
    def __repr__(self) -> str:
        return self.label


@go_func("ptr.Deref", "ptr.go:56")
def deref(p: Pointer | None, default: Any) -> Any:
    """``ptr.Deref``."""
    return default if p is None else p.get()


@dataclasses.dataclass
class CacheOptions:
    """``client.CacheOptions``."""

    reader: Any = None
    unstructured: bool = False


@dataclasses.dataclass
class Options:
    """``client.Options`` (reduced). ``copy`` is Go's struct copy."""

    scheme: Any = None
    mapper: Any = None
    http_client: Any = None
    cache: CacheOptions | None = None
    dry_run: Pointer | None = None

    @not_ported("Go's struct copy: an assignment, not a function")
    def copy(self) -> "Options":
        return struct_copy(self)


@dataclasses.dataclass
class Client:
    """A built client; ``dry_run`` says whether it is wrapped by ``NewDryRunClient``."""

    host: str
    cache_reader: Any
    dry_run: bool = False


@go_func("client.New", "client.go:109")
def new(config: Config | None, options: Options) -> tuple[Client | None, goerrors.Error | None]:
    """``client.New``: no network I/O; wraps in a dry-run client if ``*DryRun`` is true."""
    if config is None:
        return None, goerrors.new("must provide non-nil rest.Config to client.New")
    c = Client(config.host, options.cache.reader if options.cache is not None else None)
    if deref(options.dry_run, False):
        c.dry_run = True
    return c, None
