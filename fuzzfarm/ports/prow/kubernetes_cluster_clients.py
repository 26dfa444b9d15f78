"""prow ``pkg/flagutil/kubernetes_cluster_clients.go``: ``KubernetesOptions.resolve``,
``BuildClusters`` (before and after PR #299) and ``CheckAuthorizations``.

Two revisions of kubernetes-sigs/prow:

* ``BUGGY`` = 24e765300acd79b8c9095558cbd00c344d033aee (the parent of the fix): ``resolve``
  218-260, ``BuildClusters`` 358-469 - one ``cluster.Options`` built once (363-372) holding
  ``Cache.DefaultNamespaces = {namespace: {}}`` (map M) and ``Client.DryRun = &o.dryRun``,
  caller opts applied to it once (373-375), one goroutine per cluster context (382-420), each
  calling ``cluster.New(&config, func(o *cluster.Options) { *o = options })`` - a struct copy
  that shares M - then ``threads.Wait()`` (421) and, if anything failed, the retry goroutine
  (431-464); ``CheckAuthorizations`` 473-525.
* ``FIXED`` = 50dd168d0bd6ea5fe938eeecc14d4c841c2cbf72, PR #299 "fix race condition when
  loading multiple cluster contexts" (merge f8a6bd32ab5f, fixes prow issue #288): an option
  callback builds brand-new options - new ``DryRun`` pointer (to the ``dryRun`` *argument*), a
  new ``DefaultNamespaces`` map literal, the caller's opts applied - on every call (365-380);
  ``BuildClusters`` is 358-470 there, its range over the cluster configs is at 387, and the
  options are used by every cluster goroutine (388-422) and by the retry goroutine (434-465). Caller opts
  now run once per cluster, concurrently (docs/ports/prow.md#h1).

Both revisions are on controller-runtime v0.17.6 here (the version of the reported stack; the
prow commits pin v0.18.5, which behaves the same). Go maps are ``gosim.Map``: the cluster
configs (so ``range`` order comes from the schedule), ``res`` and M.

Known quirks kept on purpose (docs/ports/prow.md#hazards): the retry goroutine never exits and never records a
recovery, so ``callback`` fires on every pass for every recovered cluster (H3); it reads
``res`` without the lock (H2); the authorization checks have no deadline, so one unanswered
request blocks ``BuildClusters`` forever (H4); ``resolve`` does not latch in dry-run mode and
re-assigns ``cluster_configs`` on every call (H5); errors are aggregated in completion order
(H6).
"""

from __future__ import annotations

from typing import Any, Callable

from fuzzfarm import gosim
from fuzzfarm.gosim import Map, go_func, not_ported
from fuzzfarm.ports.controller_runtime import cache, client, cluster, goerrors, process_global, rest, struct_copy

from . import clientgo
from .utilerrors import Aggregate, new_aggregate

BUGGY = "24e765300acd"
FIXED = "50dd168d0bd6"
REVISIONS = (BUGGY, FIXED)

IN_CLUSTER_CONTEXT = ""  # kube.InClusterContext
RETRY_PERIOD = 5.0  # time.Sleep(5 * time.Second) between retry passes

MISSING_PERMISSIONS = goerrors.new("missing permissions")  # flagutil.MissingPermissions

ClusterConfigLoader = Callable[[], "tuple[Map | None, goerrors.Error | None]"]


@not_ported("the package variable clientCreationFailures (a Prometheus counter vec): Go needs no function for it")
def client_creation_failures() -> dict:
    """The ``kubernetes_failed_client_creations`` counter vec (per cluster), process-wide."""
    return process_global("prow/clientCreationFailures", dict)


class KubernetesOptions:
    """``flagutil.KubernetesOptions``, the fields ``resolve`` and ``BuildClusters`` use.

    ``load_cluster_configs`` stands in for ``kube.LoadClusterConfigs`` over the kubeconfig
    flags: it returns a *new* Go map (``gosim.Map``) context -> ``rest.Config`` on every call.
    ``revision`` picks the ``BuildClusters`` of :data:`BUGGY` or :data:`FIXED`.

    The fields other goroutines read are race-checked ``Shared`` fields: ``cluster_configs``
    (the retry goroutine ranges over it, :431-464), ``dry_run`` (every ``cluster.New`` reads it
    through ``&o.dryRun`` in the buggy revision) and ``resolved`` (H5: read and written by every
    ``resolve``). See docs/ports/prow.md#shared.
    """

    resolved = gosim.Shared(False)  # resolved bool
    dry_run = gosim.Shared(False)  # dryRun bool
    cluster_configs = gosim.Shared(None)  # clusterConfigs map[string]rest.Config

    @not_ported("the struct's zero value plus the harness's inputs (the config loader, the revision)")
    def __init__(self, load_cluster_configs: ClusterConfigLoader, revision: str = BUGGY, kubeconfig: str = ""):
        if revision not in REVISIONS:
            raise ValueError(f"unknown prow revision {revision!r}; choose one of {REVISIONS}")
        self.load_cluster_configs = load_cluster_configs
        self.revision = revision
        self.kubeconfig = kubeconfig
        # from resolution
        self.resolved = False
        self.dry_run = False
        self.prow_job_clientset: Any = None
        self.cluster_configs: Map | None = None
        self.kubernetes_clients_by_context: dict | None = None
        self.infrastructure_cluster_config: rest.Config | None = None
        self.kubeconfig_watch: gosim.Once | None = None

    # ------------------------------------------------------------------ resolve (:218-260)
    @go_func("flagutil.KubernetesOptions.resolve", "kubernetes_cluster_clients.go:218")
    def resolve(self, dry_run: bool) -> goerrors.Error | None:
        """Load the cluster configs and clients once - except in dry-run mode, which returns
        before ``resolved`` is set, so every later call loads and re-assigns them again."""
        if self.resolved:
            return None

        self.kubeconfig_watch = gosim.Once()

        cluster_configs, err = self.load_cluster_configs()
        if err is not None:
            return goerrors.wrap(f'load --kubeconfig="{self.kubeconfig}" configs', err)
        self.cluster_configs = cluster_configs

        clients: dict = {}
        for context, config in cluster_configs.items():
            c, err = clientgo.kubernetes_new_for_config(config)
            if err is not None:
                return goerrors.wrap(f"create {context} kubernetes client", err)
            clients[context] = c

        local_cfg = cluster_configs.get(IN_CLUSTER_CONTEXT)  # zero Config if absent
        self.infrastructure_cluster_config = local_cfg
        pj_client = ("prowjob clientset", local_cfg.host if local_cfg is not None else "")

        self.dry_run = dry_run
        if dry_run:
            return None  # the dry-run quirk: never latches

        self.prow_job_clientset = pj_client
        self.kubernetes_clients_by_context = clients
        self.resolved = True
        return None

    @go_func("flagutil.KubernetesOptions.KnownClusters", "kubernetes_cluster_clients.go:552")
    def known_clusters(self, dry_run: bool) -> tuple[Map | None, goerrors.Error | None]:
        """``KnownClusters``: resolve, then the (possibly re-assigned) configs map."""
        err = self.resolve(dry_run)
        if err is not None:
            return None, err
        return self.cluster_configs, None

    # ------------------------------------------------------------------ BuildClusters
    @not_ported("picks the BuildClusters of the prow revision under test")
    def build_clusters(self, dry_run: bool, required_test_pod_verbs: list[str], callback: Callable[[], None],
                       namespace: str, *opts: cluster.Option) -> tuple[Map | None, goerrors.Error | None]:
        """``BuildClusters``: one ``cluster.Cluster`` per reachable, authorized context.

        Returns ``(res, err)``: ``res`` maps context -> cluster (a Go map, also read by the
        retry goroutine); ``err`` is an :class:`Aggregate` of the per-cluster errors or None.
        """
        if self.revision == BUGGY:
            return self._build_clusters_24e765300acd(dry_run, required_test_pod_verbs, callback, namespace, *opts)
        return self._build_clusters_50dd168d0bd6(dry_run, required_test_pod_verbs, callback, namespace, *opts)

    @go_func("flagutil.KubernetesOptions.BuildClusters", "kubernetes_cluster_clients.go:358")
    def _build_clusters_24e765300acd(self, dry_run, required_test_pod_verbs, callback, namespace, *opts):
        """prow@24e765300acd ``BuildClusters`` (:358-469): one shared ``options``."""
        err = self.resolve(dry_run)
        if err is not None:
            return None, err

        # :363-372 - built once; every cluster.New below gets a struct copy of it, and a
        # struct copy shares the DefaultNamespaces map.
        options = cluster.Options(
            client=client.Options(dry_run=client.Pointer.to_field(self, "dry_run")),
            cache=cache.Options(default_namespaces=Map({namespace: cache.Config()}, name="DefaultNamespaces")),
        )
        for opt in opts:  # :373-375, once, on this goroutine
            opt(options)

        @go_func("flagutil.KubernetesOptions.BuildClusters.func1.1", "kubernetes_cluster_clients.go:389")
        def overwrite_options(o: cluster.Options) -> None:  # also the retry goroutine's copy, func2.1 at 441
            o.assign(options)  # *o = options

        res = Map(name="res")
        errs: list = []
        lock = gosim.Mutex(name="BuildClusters.lock")
        threads = gosim.WaitGroup(name="BuildClusters.threads")
        threads.add(len(self.cluster_configs))  # :381
        for build_cluster_name, build_cluster_config in self.cluster_configs.items():  # :382
            gosim.go(self._build_one, build_cluster_name, struct_copy(build_cluster_config), overwrite_options,
                     required_test_pod_verbs, namespace, res, errs, lock, threads,
                     name=f"BuildClusters.func1({build_cluster_name})")
        threads.wait()  # :421

        aggregated_err = new_aggregate(errs)
        if aggregated_err is not None:
            gosim.go(self._retry_failed, res, overwrite_options, required_test_pod_verbs, callback, namespace,
                     name="BuildClusters.func2(retry)")  # :431-464
        return res, aggregated_err

    @go_func("flagutil.KubernetesOptions.BuildClusters", "kubernetes_cluster_clients.go:358")
    def _build_clusters_50dd168d0bd6(self, dry_run, required_test_pod_verbs, callback, namespace, *opts):
        """prow@50dd168d0bd6 ``BuildClusters`` (PR #299): fresh options per ``cluster.New``."""
        err = self.resolve(dry_run)
        if err is not None:
            return None, err

        @go_func("flagutil.KubernetesOptions.BuildClusters.func1", "kubernetes_cluster_clients.go:365")
        def override_options(o: cluster.Options) -> None:  # :365-380, runs inside cluster.New
            new_options = cluster.Options(
                client=client.Options(dry_run=client.Pointer.to_value(dry_run, "&dryRun")),
                cache=cache.Options(default_namespaces=Map({namespace: cache.Config()}, name="DefaultNamespaces")),
            )
            for opt in opts:  # once per call, concurrently across clusters (H1)
                opt(new_options)
            o.assign(new_options)

        res = Map(name="res")
        errs: list = []
        lock = gosim.Mutex(name="BuildClusters.lock")
        threads = gosim.WaitGroup(name="BuildClusters.threads")
        threads.add(len(self.cluster_configs))
        for build_cluster_name, build_cluster_config in self.cluster_configs.items():  # :387
            gosim.go(self._build_one, build_cluster_name, struct_copy(build_cluster_config), override_options,
                     required_test_pod_verbs, namespace, res, errs, lock, threads,
                     name=f"BuildClusters.func1({build_cluster_name})")
        threads.wait()

        aggregated_err = new_aggregate(errs)
        if aggregated_err is not None:
            gosim.go(self._retry_failed, res, override_options, required_test_pod_verbs, callback, namespace,
                     name="BuildClusters.func2(retry)")  # :434-465
        return res, aggregated_err

    # ------------------------------------------------------------------ the goroutines
    @go_func("flagutil.KubernetesOptions.BuildClusters.func1", "kubernetes_cluster_clients.go:383")
    def _build_one(self, name: str, config: rest.Config, set_options: cluster.Option, required_test_pod_verbs,
                   namespace: str, res: Map, errs: list, lock: gosim.Mutex, threads: gosim.WaitGroup) -> None:
        """The per-cluster goroutine (buggy :383-419, fixed :388-422; identical bodies). Declared with
        the buggy revision's line; the fixed one's ``cluster.New`` call is at :394."""
        try:  # defer threads.Done()
            mgr, err = cluster.new(config, set_options)
            if err is not None:
                failures = client_creation_failures()
                failures[name] = failures.get(name, 0) + 1
                lock.lock()
                errs.append(goerrors.wrap(f"failed to construct cluster {name}", err))
                lock.unlock()
                return

            authz_client, err = clientgo.authorization_v1_new_for_config(config)
            if err is not None:
                lock.lock()
                errs.append(goerrors.new(f"failed to construct authz client for cluster {name}: {err}"))
                lock.unlock()
                return
            err = check_authorizations(authz_client.self_subject_access_reviews(), namespace, required_test_pod_verbs)
            if err is not None:
                lock.lock()
                errs.append(goerrors.wrap(f"failed pod resource authorization check for cluster {name}", err))
                lock.unlock()
                return

            lock.lock()
            res[name] = mgr
            lock.unlock()
        finally:
            threads.done()

    @go_func("flagutil.KubernetesOptions.BuildClusters.func2", "kubernetes_cluster_clients.go:431")
    def _retry_failed(self, res: Map, set_options: cluster.Option, required_test_pod_verbs, callback, namespace: str) -> None:
        """The retry goroutine: forever, re-try every context not in ``res`` (read without
        the lock) and call ``callback`` for each that now works; then sleep 5 s. It records
        nothing, so a recovered cluster calls back on every pass (H3)."""
        while True:
            for build_cluster_name, build_cluster_config in self.cluster_configs.items():
                if build_cluster_name in res:  # already-successfully-checked
                    continue
                config = struct_copy(build_cluster_config)
                _, err = cluster.new(config, set_options)
                if err is not None:
                    continue  # logged at trace level
                authz_client, err = clientgo.authorization_v1_new_for_config(config)
                if err is not None:
                    continue
                err = check_authorizations(authz_client.self_subject_access_reviews(), namespace, required_test_pod_verbs)
                if err is not None:
                    continue
                callback()
            gosim.sleep(RETRY_PERIOD)


@go_func("flagutil.CheckAuthorizations", "kubernetes_cluster_clients.go:473")
def check_authorizations(client: clientgo.SelfSubjectAccessReviews, namespace: str,
                         required_test_pod_verbs: list[str]) -> Aggregate | None:
    """``CheckAuthorizations`` (:473-525): one SelfSubjectAccessReview per verb on pods.

    A request error is collected and the next verb tried; a review that is not allowed adds
    ``missing permissions: unable to "<verb>" pods``. No deadline: an unanswered request
    blocks forever.
    """
    errs: list = []
    for verb in required_test_pod_verbs:
        ssar = clientgo.SelfSubjectAccessReview(clientgo.ResourceAttributes(namespace=namespace, verb=verb, resource="pods"))
        expanded, err = client.create(ssar)
        if err is not None:
            errs.append(err)
            continue
        if not expanded.status.allowed:
            errs.append(goerrors.Error(f'{MISSING_PERMISSIONS}: unable to "{verb}" pods', MISSING_PERMISSIONS))
    return new_aggregate(errs)
