"""``pkg/client/apiutil`` (controller-runtime v0.17.6): objects, GVKs and the lazy REST mapper.

``new_dynamic_rest_mapper`` (``NewDynamicRESTMapper``, apiutil/restmapper.go:35-50) is lazy:
construction does no network I/O; the first ``RESTMapping`` for a group does discovery (a
request to the fake API server, a scheduling point, and a possible error) and caches it.
"""

from __future__ import annotations

import dataclasses

from fuzzfarm.gosim import go_func, not_ported

from . import goerrors
from .rest import Config, HTTPClient


@dataclasses.dataclass(frozen=True)
class Object:
    """A ``client.Object`` used as a map key (``ByObject``): identified by its kind."""

    kind: str

    @not_ported("how %T prints the object's type")
    def __repr__(self) -> str:
        return f"*v1.{self.kind}"


POD = Object("Pod")
CONFIG_MAP = Object("ConfigMap")
NODE = Object("Node")

# The scheme: kinds registered in client-go's scheme.Scheme that this port knows.
SCHEME = "k8s.io/client-go/kubernetes/scheme.Scheme"
_REGISTERED = {"Pod", "ConfigMap", "Secret", "Node", "Namespace"}


@go_func("apiutil.GVKForObject", "apimachinery.go:92")
def gvk_for_object(obj: Object, scheme: object) -> tuple[str | None, goerrors.Error | None]:
    """``apiutil.GVKForObject``."""
    if obj.kind not in _REGISTERED:
        return None, goerrors.new(f'no kind is registered for the type {obj!r} in scheme "{scheme}"')
    return f"/v1, Kind={obj.kind}", None


class DynamicRESTMapper:
    """The lazy dynamic REST mapper: discovery on first use of a kind, then cached."""

    @not_ported("the mapper struct literal NewDynamicRESTMapper returns")
    def __init__(self, http_client: HTTPClient):
        self.http_client = http_client
        self.known: dict[str, bool] = {}

    @go_func("apiutil.mapper.RESTMapping", "restmapper.go:117")
    def is_namespaced(self, kind: str) -> tuple[bool, goerrors.Error | None]:
        if kind in self.known:
            return self.known[kind], None
        server = self.http_client.server
        if server is None:
            return False, goerrors.new(f'Get "{self.http_client.host}/api/v1": no such host')
        namespaced, err = server.discover(kind)
        if err is not None:
            return False, err
        self.known[kind] = namespaced
        return namespaced, None


@go_func("apiutil.NewDynamicRESTMapper", "restmapper.go:35")
def new_dynamic_rest_mapper(config: Config, http_client: HTTPClient) -> tuple[DynamicRESTMapper, None]:
    """``apiutil.NewDynamicRESTMapper`` (lazy: never fails, no I/O)."""
    return DynamicRESTMapper(http_client), None


@go_func("apiutil.IsObjectNamespaced", "apimachinery.go:63")
def is_object_namespaced(obj: Object, scheme: object, mapper: DynamicRESTMapper) -> tuple[bool, goerrors.Error | None]:
    """``apiutil.IsObjectNamespaced``: GVK from the scheme, then a REST mapping."""
    _, err = gvk_for_object(obj, scheme)
    if err is not None:
        return False, err
    namespaced, err = mapper.is_namespaced(obj.kind)
    if err is not None:
        return False, goerrors.wrap("failed to get restmapping", err)
    return namespaced, None
