"""Stand-ins for the client-go clients prow builds next to each cluster (no real I/O).

* ``kubernetes_new_for_config``: ``kubernetes.NewForConfig`` (resolve builds one per context;
  it fails exactly when ``rest.HTTPClientFor`` fails, i.e. for a kubeconfig whose TLS material
  does not load, so such a config already fails ``resolve``).
* ``authorization_v1_new_for_config``: ``authorizationv1.NewForConfig``; its
  ``self_subject_access_reviews().create`` is the request ``CheckAuthorizations`` makes per
  verb: network I/O on the fake API server, with no deadline (docs/ports/prow.md#h4).
"""

from __future__ import annotations

import dataclasses

from fuzzfarm.gosim import go_func, not_ported
from fuzzfarm.ports.controller_runtime import goerrors, rest


@dataclasses.dataclass
class Clientset:
    """``kubernetes.Interface`` for one context."""

    host: str


@go_func("kubernetes.NewForConfig", "clientset.go:468")
def kubernetes_new_for_config(config: rest.Config) -> tuple[Clientset | None, goerrors.Error | None]:
    http_client, err = rest.http_client_for(config)
    if err is not None:
        return None, err
    return Clientset(http_client.host), None


@dataclasses.dataclass
class ResourceAttributes:
    """authorizationv1.ResourceAttributes: the fields prow's access review sets."""

    namespace: str
    verb: str
    resource: str


@dataclasses.dataclass
class SelfSubjectAccessReview:
    """The review object (``Spec.ResourceAttributes``) and, once created, ``status``."""

    resource_attributes: ResourceAttributes
    status: rest.SSARStatus | None = None


class SelfSubjectAccessReviews:
    """``authorizationv1.SelfSubjectAccessReviewInterface``."""

    @go_func("v1.newSelfSubjectAccessReviews", "selfsubjectaccessreview.go:48")
    def __init__(self, http_client: rest.HTTPClient):
        self.http_client = http_client

    @go_func("v1.selfSubjectAccessReviews.Create", "selfsubjectaccessreview.go:55")
    def create(self, ssar: SelfSubjectAccessReview) -> tuple[SelfSubjectAccessReview | None, goerrors.Error | None]:
        """``Create(context.TODO(), ssar, CreateOptions{})``: no deadline."""
        server = self.http_client.server
        if server is None:
            return None, goerrors.new(f'Post "{self.http_client.host}": no such host')
        status, err = server.create_ssar(ssar.resource_attributes.verb)
        if err is not None:
            return None, err
        return dataclasses.replace(ssar, status=status), None


class AuthorizationV1Client:
    @not_ported("the struct literal NewForConfigAndClient returns")
    def __init__(self, http_client: rest.HTTPClient):
        self.http_client = http_client

    @go_func("v1.AuthorizationV1Client.SelfSubjectAccessReviews", "authorization_client.go:46")
    def self_subject_access_reviews(self) -> SelfSubjectAccessReviews:
        return SelfSubjectAccessReviews(self.http_client)


@go_func("v1.NewForConfig", "authorization_client.go:61")
def authorization_v1_new_for_config(config: rest.Config) -> tuple[AuthorizationV1Client | None, goerrors.Error | None]:
    http_client, err = rest.http_client_for(config)
    if err is not None:
        return None, err
    return AuthorizationV1Client(http_client), None
