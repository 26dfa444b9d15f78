package clusterbuilder

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"fuzzfarm.dev/gotwins/clusterbuilder/rest"
)

// KubernetesOptions holds the resolved cluster configs (prow pkg/flagutil).
type KubernetesOptions struct {
	// LoadClusterConfigs stands for kube.LoadClusterConfigs over the kubeconfig flags.
	LoadClusterConfigs func() (map[string]rest.Config, error)

	resolved                    bool
	dryRun                      bool
	kubeconfigWach              *sync.Once
	clusterConfigs              map[string]rest.Config
	infrastructureClusterConfig *rest.Config
	kubernetesClientsByContext  map[string]*rest.Clientset
}

// InClusterContext is kube.InClusterContext.
const InClusterContext = ""

// MissingPermissions is returned when a review is not allowed.
var MissingPermissions = errors.New("missing permissions")

// upstream: kubernetes-sigs/prow pkg/flagutil/kubernetes_cluster_clients.go:218-260 @24e765300acd
func (o *KubernetesOptions) resolve(dryRun bool) error {
	if o.resolved {
		return nil
	}

	o.kubeconfigWach = &sync.Once{}

	clusterConfigs, err := o.LoadClusterConfigs()
	if err != nil {
		return fmt.Errorf("load --kubeconfig configs: %w", err)
	}
	o.clusterConfigs = clusterConfigs

	clients := map[string]*rest.Clientset{}
	for context, config := range clusterConfigs {
		client, err := rest.NewForConfig(&config)
		if err != nil {
			return fmt.Errorf("create %s kubernetes client: %w", context, err)
		}
		clients[context] = client
	}

	localCfg := clusterConfigs[InClusterContext]
	o.infrastructureClusterConfig = &localCfg

	o.dryRun = dryRun
	if dryRun {
		return nil
	}

	o.kubernetesClientsByContext = clients
	o.resolved = true

	return nil
}

// upstream: kubernetes-sigs/prow pkg/flagutil/kubernetes_cluster_clients.go:473-525 @24e765300acd
func CheckAuthorizations(client SelfSubjectAccessReviewInterface, namespace string, requiredTestPodVerbs []string) error {
	var errs []error
	for _, verb := range requiredTestPodVerbs {
		ssar := SelfSubjectAccessReview{Namespace: namespace, Verb: verb, Resource: "pods"}
		ssarExpanded, err := client.Create(context.TODO(), &ssar)
		if err != nil {
			errs = append(errs, err)
			continue
		}

		if !ssarExpanded.Allowed {
			errs = append(errs, fmt.Errorf("%w: unable to %q pods", MissingPermissions, verb))
		}
	}

	return NewAggregate(errs)
}

// upstream: kubernetes-sigs/prow pkg/flagutil/kubernetes_cluster_clients.go:552-557 @24e765300acd
func (o *KubernetesOptions) KnownClusters(dryRun bool) (map[string]rest.Config, error) {
	if err := o.resolve(dryRun); err != nil {
		return nil, err
	}
	return o.clusterConfigs, nil
}

// SelfSubjectAccessReview is the review request and its answer.
type SelfSubjectAccessReview struct {
	Namespace, Verb, Resource string
	Allowed                   bool
}

// SelfSubjectAccessReviewInterface creates reviews.
type SelfSubjectAccessReviewInterface interface {
	Create(ctx context.Context, review *SelfSubjectAccessReview) (*SelfSubjectAccessReview, error)
}

// AuthorizationV1Client is client-go's typed authorization/v1 client.
type AuthorizationV1Client struct {
	config *rest.Config
}

// upstream: kubernetes/client-go kubernetes/typed/authorization/v1/authorization_client.go:61-71 @v0.30.1
func NewForConfig(c *rest.Config) (*AuthorizationV1Client, error) {
	config := *c
	if _, err := rest.HTTPClientFor(&config); err != nil {
		return nil, err
	}
	return &AuthorizationV1Client{config: &config}, nil
}

// upstream: kubernetes/client-go kubernetes/typed/authorization/v1/authorization_client.go:46-48 @v0.30.1
func (c *AuthorizationV1Client) SelfSubjectAccessReviews() SelfSubjectAccessReviewInterface {
	return newSelfSubjectAccessReviews(c)
}

type selfSubjectAccessReviews struct {
	server *rest.Server
}

// upstream: kubernetes/client-go kubernetes/typed/authorization/v1/selfsubjectaccessreview.go:48-52 @v0.30.1
func newSelfSubjectAccessReviews(c *AuthorizationV1Client) *selfSubjectAccessReviews {
	return &selfSubjectAccessReviews{server: c.config.Server}
}

// upstream: kubernetes/client-go kubernetes/typed/authorization/v1/selfsubjectaccessreview.go:55-64 @v0.30.1
func (c *selfSubjectAccessReviews) Create(ctx context.Context, review *SelfSubjectAccessReview) (*SelfSubjectAccessReview, error) {
	if c.server != nil && c.server.Unreachable {
		return nil, rest.ErrRefused
	}
	result := *review
	result.Allowed = c.server == nil || !c.server.Denied[review.Verb]
	return &result, nil
}

// Aggregate is apimachinery's aggregate error (pkg/util/errors, v0.30.1).
type Aggregate interface {
	error
	Errors() []error
}

// upstream: kubernetes/apimachinery pkg/util/errors/errors.go:46-61 @v0.30.1
func NewAggregate(errlist []error) Aggregate {
	if len(errlist) == 0 {
		return nil
	}
	// In case of input error list contains nil
	var errs []error
	for _, e := range errlist {
		if e != nil {
			errs = append(errs, e)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return aggregate(errs)
}

type aggregate []error

// upstream: kubernetes/apimachinery pkg/util/errors/errors.go:69-95 @v0.30.1
func (agg aggregate) Error() string {
	if len(agg) == 0 {
		// This should never happen, really.
		return ""
	}
	if len(agg) == 1 {
		return agg[0].Error()
	}
	seenerrs := map[string]struct{}{}
	result := ""
	agg.visit(func(err error) bool {
		msg := err.Error()
		if _, ok := seenerrs[msg]; ok {
			return false
		}
		seenerrs[msg] = struct{}{}
		if len(seenerrs) > 1 {
			result += ", "
		}
		result += msg
		return false
	})
	if len(seenerrs) == 1 {
		return result
	}
	return "[" + result + "]"
}

func (agg aggregate) Errors() []error { return []error(agg) }

// upstream: kubernetes/apimachinery pkg/util/errors/errors.go:103-124 @v0.30.1
func (agg aggregate) visit(f func(err error) bool) bool {
	for _, err := range agg {
		switch err := err.(type) {
		case aggregate:
			if match := err.visit(f); match {
				return match
			}
		default:
			if match := f(err); match {
				return match
			}
		}
	}
	return false
}
