"""controller-runtime v0.17.6 (``sigs.k8s.io/controller-runtime``), the parts prow's
``BuildClusters`` runs through, ported onto ``fuzzfarm.gosim``.

Port target: tag v0.17.6 (commit 9557f1031fe4), whose line numbers match the stack in prow
issue #288 (``cache.defaultOpts`` at ``pkg/cache/cache.go:488``). v0.18.5 (75a38d2123d4, the
version both prow commits pin) behaves the same; there ``defaultOpts`` starts at :408 and the
write is at :503.

Modules:

* :mod:`.cluster` - ``pkg/cluster/cluster.go``: ``Options``, ``new``, ``set_options_defaults``.
* :mod:`.cache` - ``pkg/cache/cache.go``: ``Options``, ``ByObject``, ``Config``, ``new``,
  ``default_opts``.
* :mod:`.multi_namespace_cache` - ``pkg/cache/multi_namespace_cache.go``.
* :mod:`.client`, :mod:`.apiutil`, :mod:`.rest` - the small pieces of controller-runtime's
  client and of client-go that ``cluster.New`` touches, plus the fake API server that stands in
  for the network (no real I/O; each request is a scheduling point).

**Go value semantics.** Go copies structs by value but a map field copies only the map *handle*.
Every ``Options`` type here has ``copy()`` (a shallow copy: nested *struct* fields are copied,
``gosim.Map`` fields are shared) and the functions that take options by value in Go copy them on
entry. A deep copy anywhere would hide the bug this port exists for.

**Linked version.** Which controller-runtime a Go binary runs is fixed at build time. The port
models that with a per-run setting, :func:`link`: ``V0_17_6`` (default) or ``V0_17_6_PR3078``,
v0.17.6 with controller-runtime PR #3078's defensive map clones in ``default_opts``
(a1adc6bdea73, merge 5a8edf690e74; released in v0.21.0, backported to v0.19.5 and v0.20.1).
"""

from __future__ import annotations

from typing import Any, Callable

from fuzzfarm.gosim import current_runtime, not_ported

V0_17_6 = "v0.17.6"
V0_17_6_PR3078 = "v0.17.6+pr3078"
VERSIONS = (V0_17_6, V0_17_6_PR3078)

_run_state: dict[str, Any] = {"rt": None, "globals": {}}


@not_ported("a Go package-level variable, scoped to one run: Go needs no function for it")
def process_global(key: str, factory: Callable[[], Any]) -> Any:
    """A Go package-level variable, scoped to the current run (a run is one Go process).

    Created by ``factory`` on first use in a run; a new run starts from scratch. Identity of
    the runtime object decides the scope (never ``id()``).
    """
    rt = current_runtime()
    if _run_state["rt"] is not rt:
        _run_state["rt"] = rt
        _run_state["globals"] = {}
    g = _run_state["globals"]
    if key not in g:
        g[key] = factory()
    return g[key]


@not_ported("Go's struct assignment: a statement, not a function")
def struct_copy(obj: Any) -> Any:
    """Go's struct assignment: a new value with the same field values (maps and pointers are
    shared). Same result as ``copy.copy`` / ``dataclasses.replace``, faster."""
    new = object.__new__(type(obj))
    new.__dict__.update(obj.__dict__)
    return new


@not_ported("picks the controller-runtime version this run links (a build-time choice in Go)")
def link(version: str) -> None:
    """Set the controller-runtime version this run's "binary" is linked against."""
    if version not in VERSIONS:
        raise ValueError(f"unknown controller-runtime version {version!r}; choose one of {VERSIONS}")
    process_global("linked", lambda: {"version": V0_17_6})["version"] = version


@not_ported("the controller-runtime version this run links (a build-time choice in Go)")
def linked_version() -> str:
    """The version set by :func:`link` for this run (default ``V0_17_6``)."""
    return process_global("linked", lambda: {"version": V0_17_6})["version"]
