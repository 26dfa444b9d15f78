#!/usr/bin/env python3
"""cluster-builder: prow ``BuildClusters`` over controller-runtime ``cluster.New`` /
``cache.New`` / ``defaultOpts`` - seed bug 2, ``fatal error: concurrent map writes`` at
controller-runtime v0.17.6 ``pkg/cache/cache.go:488`` (prow issue #288, fixed by prow PR #299).

Variants (``FUZZFARM_VARIANT``):

* ``buggy`` - prow 24e765300acd on controller-runtime v0.17.6: every cluster goroutine's
  ``default_opts`` writes one shared ``DefaultNamespaces`` map (docs/ports/prow.md#interleavings: T1/T2/T3).
* ``fixed`` - prow 50dd168d0bd6 (PR #299): fresh options and map per ``cluster.New``.
* ``library-fixed`` - the buggy prow on controller-runtime v0.17.6 plus PR #3078's map clones.

Input layout. The scenario is decoded with ``fuzzfarm.harness.ScenarioReader`` integers, taken
from the **end** of the input as atheris's ``FuzzedDataProvider`` takes them; whatever prefix
is left drives the schedule
(one byte per scheduling decision, ``fuzzfarm.strategies.BytesStrategy``; when it runs out,
the running goroutine keeps running). Decoded, in order:

1. number of cluster contexts, 1-8; dry-run on/off; caller options (half the time none - which
   is what both prow callers pass - else ``ByObject`` entries: pods plus cluster-scoped nodes,
   or pods with caller-supplied namespaces); how long main keeps running after ``BuildClusters``
   returns (0/1/6/16 virtual s: the retry goroutine's 5 s passes happen in that window);
2. per context: its name (names collide sometimes: a kubeconfig has each context once, the
   first wins), its health and the verb it concerns, and when it recovers (never/1/6/11 s):

   * ``ok``;
   * ``invalid-config``: its TLS material does not load. ``rest.HTTPClientFor`` fails, which
     already fails ``resolve`` (``kubernetes.NewForConfig``), so ``BuildClusters`` returns that
     error without starting anything - faithful to v0.17.6, whose ``cluster.New`` fails on
     nothing else without network I/O;
   * ``unreachable``: every request is refused (the auth check fails; with ``ByObject`` options
     ``cluster.New`` itself fails in discovery) until it recovers;
   * ``denied``: the SelfSubjectAccessReview for that verb is not allowed until it recovers;
   * ``hang``: the review request for that verb is accepted and never answered.

Oracles. Everything the Go runtime itself would report is a failure: ``concurrent map writes``,
``concurrent map iteration and map write``, ``concurrent map read and map write`` (reachable
with ``ByObject`` options), goroutine panics, WaitGroup misuse, a genuine deadlock. Two spec
hazards are not Go crashes and get their own treatment:

* **H3** - the retry goroutine never exits. In Go it lives as long as the process and dies with
  it, so by default the run ends when main returns and leaks are not checked. With
  ``FUZZFARM_HAZARDS=1`` the runtime's leak check is on and reports it (kind
  ``goroutine leak``, state ``KubernetesOptions._retry_failed``).
* **H4** - a hung review request blocks its goroutine, ``threads.Wait()`` and so
  ``BuildClusters`` forever. Network waits are not Go deadlocks, but the simulation ends up
  with every goroutine asleep. With ``FUZZFARM_HAZARDS=1`` that is reported as its own kind,
  ``startup hang (H4)``, on the hung goroutine. By default it is recorded in the scenario text
  (``observed: H4 ...``) and the run counts as no failure: a hang is one input byte away, and
  if it stopped libFuzzer the fuzzer would never get past it to the seed bug. ``runone`` shows
  the scenario text, so the observation stays visible.

The ``fixed`` and ``library-fixed`` variants must never show a map failure; H3/H4 exist in all
variants.

``FUZZFARM_TOLERATE`` (``;``-separated signatures, as in the ``checker`` harness) makes
``TestOneInput`` report matching failures on stderr (one ``fuzzfarm: tolerated ...`` line each)
instead of raising them: a signature is a failure kind, or ``kind at f1 <- f2 <- f3``. E.g. a
hazard campaign on ``fixed``: ``FUZZFARM_HAZARDS=1 FUZZFARM_TOLERATE="startup hang (H4);goroutine
leak"`` runs on past H3/H4 and still stops at anything else.

Standalone: ``FUZZFARM_VARIANT=buggy python harnesses/cluster_builder_race.py -runs=N -seed=S
[corpus]``; farm name ``cluster-builder``; replay: ``python -m fuzzfarm.runone cluster-builder
buggy crash-file``.
"""

from __future__ import annotations

import dataclasses
import os

from fuzzfarm.instrument import instrument_imports

with instrument_imports():  # atheris's, with the patched code cached (fuzzfarm/instrument.py)
    from fuzzfarm import gosim
    from fuzzfarm.gosim import failures as _failures
    from fuzzfarm.ports import controller_runtime
    from fuzzfarm.ports.controller_runtime import apiutil, cache, cluster, rest
    from fuzzfarm.ports.prow import kubernetes_cluster_clients as kcc

from fuzzfarm.harness import Program, ScenarioReader, declare  # noqa: E402

NAME = "cluster-builder"
HAZARDS_ENV = "FUZZFARM_HAZARDS"

CONTEXT_NAMES = ("build01", "build02", "build11", "vsphere02", "arm01", "app.ci", "hive", "default")
# prow-controller-manager's requiredTestPodVerbs (cmd/prow-controller-manager/main.go).
VERBS = ("delete", "list", "watch", "get", "patch")
NAMESPACE = "test-pods"
HEALTHS = ("ok", "ok", "ok", "ok", "invalid-config", "unreachable", "denied", "hang")
RECOVERY = (None, 1.0, 6.0, 11.0)
OBSERVE = (0.0, 1.0, 6.0, 16.0)
# "none" is what both prow callers pass, so half the inputs get it.
CALLER_OPTS = ("none", "none", "by-object", "by-object-namespaces")
MAX_STEPS = 20_000
# The detector is off by default: prow's report is a production crash (``fatal error: concurrent
# map writes``, no -race); with it on, the unordered DefaultNamespaces writes end the run as a
# ``data race`` first (docs/ports/prow.md#shared). FUZZFARM_RACE=on turns it on.
RACE = False

_PROW = {"buggy": kcc.BUGGY, "fixed": kcc.FIXED, "library-fixed": kcc.BUGGY}
_LIBRARY = {"buggy": controller_runtime.V0_17_6, "fixed": controller_runtime.V0_17_6,
            "library-fixed": controller_runtime.V0_17_6_PR3078}


class StartupHang(_failures.GoFailure):
    """docs/ports/prow.md#h4: ``BuildClusters`` can never return - a review request is never answered and
    nothing sets a deadline. Reported on the hung goroutine (only with ``FUZZFARM_HAZARDS=1``)."""

    kind = "startup hang (H4)"
    fatal = False


# --------------------------------------------------------------------------- the scenario

@dataclasses.dataclass(frozen=True)
class ClusterSpec:
    """One kubeconfig context and what its API server does."""

    name: str
    health: str
    verb: str
    recover_at: float | None

    def describe(self) -> str:
        if self.health == "ok":
            return f"{self.name}:ok"
        what = self.health + (f"({self.verb})" if self.health in ("denied", "hang") else "")
        if self.health in ("unreachable", "denied") and self.recover_at is not None:
            what += f" until {self.recover_at:g}s"
        return f"{self.name}:{what}"


@dataclasses.dataclass(frozen=True)
class Scenario:
    """What an input decodes to: the clusters, dry run, the caller's options, when to observe."""

    clusters: tuple
    dry_run: bool
    caller_opts: str
    observe: float

    def describe(self, variant: str) -> str:
        cl = ", ".join(c.describe() for c in self.clusters)
        return (f"{NAME}/{variant}: {len(self.clusters)} context(s) [{cl}]; dry_run={self.dry_run}; "
                f"caller opts={self.caller_opts}; main runs {self.observe:g}s after BuildClusters returns")


def read_scenario(rd: ScenarioReader) -> Scenario:
    """The scenario, read from the end of the input (the rest is the schedule).

    Packed tight, so that even short inputs keep bytes for the schedule: one header byte
    (contexts - 1: 3 bits, dry-run: 1, caller opts: 2, observe window: 2), one byte for the
    context names (rotation: 3 bits; top two bits set: the last context repeats the first's
    name), then one byte per context (health: 3 bits, verb: 3 bits mod 5, recovery: 2).
    """
    h = rd.int_in_range(0, 255)
    n = 1 + (h & 7)
    dry_run = bool(h >> 3 & 1)
    caller_opts = CALLER_OPTS[h >> 4 & 3]
    observe = OBSERVE[h >> 6 & 3]
    names = rd.int_in_range(0, 255)
    clusters = []
    seen = set()
    for i in range(n):
        b = rd.int_in_range(0, 255)
        # Distinct names (a rotation), except that with both top bits set the last context
        # repeats the first one's name; a kubeconfig holds each context once: the first wins.
        name = CONTEXT_NAMES[(i + names) % len(CONTEXT_NAMES)]
        if n > 1 and i == n - 1 and names & 0xC0 == 0xC0:
            name = CONTEXT_NAMES[names % len(CONTEXT_NAMES)]
        health = HEALTHS[b & 7]
        verb = VERBS[(b >> 3 & 7) % len(VERBS)]
        recover_at = RECOVERY[b >> 6 & 3]
        if name in seen:
            continue
        seen.add(name)
        clusters.append(ClusterSpec(name, health, verb, recover_at))
    return Scenario(tuple(clusters), dry_run, caller_opts, observe)


def caller_option(kind: str):
    """A ``func(*cluster.Options)`` a caller might pass; it builds fresh maps on every call
    (in the buggy prow it runs once and its maps are then shared; fixed runs it per cluster)."""
    if kind == "none":
        return None

    def opt(o: cluster.Options) -> None:
        if kind == "by-object":  # a namespaced kind without namespaces, and a cluster-scoped kind
            by_object = {apiutil.POD: cache.ByObject(label="created-by-prow=true"),
                         apiutil.NODE: cache.ByObject(label="node-role.kubernetes.io/worker")}
        else:  # caller-supplied namespaces (cache.go:459 writes into them)
            ns = gosim.Map({NAMESPACE: cache.Config(label_selector="created-by-prow=true")},
                           name="ByObject[Pod].Namespaces")
            by_object = {apiutil.POD: cache.ByObject(namespaces=ns)}
        o.cache.by_object = gosim.Map(by_object, name="ByObject")

    opt.__qualname__ = f"caller_option[{kind}]"
    return opt


@dataclasses.dataclass
class Observed:
    """What main saw; filled in during the run (for tests and the scenario text)."""

    returned: bool = False
    res: list | None = None
    err: object = None
    callbacks: list = dataclasses.field(default_factory=list)
    servers: dict = dataclasses.field(default_factory=dict)

    def hung(self) -> list[int]:
        return [gid for s in self.servers.values() for gid in s.hung]


def scenario_main(sc: Scenario, variant: str, out: Observed):
    """Goroutine 1: what a prow main does at startup - build the clusters, then keep running
    for ``sc.observe`` virtual seconds (the retry goroutine runs meanwhile)."""

    def main() -> None:
        controller_runtime.link(_LIBRARY[variant])
        for c in sc.clusters:
            out.servers[c.name] = rest.FakeAPIServer(
                c.name,
                reachable=c.health != "unreachable",
                denied_verb=c.verb if c.health == "denied" else None,
                hang_verb=c.verb if c.health == "hang" else None,
                recover_at=c.recover_at,
            )

        def load_cluster_configs():  # kube.LoadClusterConfigs: a new map per call
            configs = {}
            for c in sc.clusters:
                s = out.servers[c.name]
                tls_error = (f"unable to load root certificates: open /etc/{c.name}/ca.crt: no such file or directory"
                             if c.health == "invalid-config" else None)
                configs[c.name] = rest.Config(host=s.host, tls_error=tls_error, server=s)
            return gosim.Map(configs, name="clusterConfigs"), None

        def callback() -> None:  # prow: log and interrupts.Terminate()
            out.callbacks.append(gosim.now())

        o = kcc.KubernetesOptions(load_cluster_configs, revision=_PROW[variant])
        opt = caller_option(sc.caller_opts)
        opts = (opt,) if opt is not None else ()
        res, err = o.build_clusters(sc.dry_run, list(VERBS), callback, NAMESPACE, *opts)
        out.returned = True
        out.res = sorted(res.snapshot()) if res is not None else None
        out.err = err
        if sc.observe > 0:
            gosim.sleep(sc.observe)

    return main


def hazards_enabled(hazards: bool | None = None) -> bool:
    if hazards is not None:
        return hazards
    return os.environ.get(HAZARDS_ENV, "0") not in ("", "0", "false", "no")


def _startup_hang(dl: _failures.GoFailure, gid: int) -> StartupHang:
    """Re-label the simulation's all-asleep deadlock as H4, on the hung goroutine."""
    f = StartupHang(f"BuildClusters can never return: goroutine {gid}'s SelfSubjectAccessReview request "
                    "is never answered and has no deadline")
    f.decision, f.step, f.now = dl.decision, dl.step, dl.now
    dumps = sorted(dl.dumps, key=lambda d: d.gid != gid)
    f.dumps = dumps
    f.goroutine = gid
    f.goroutine_name = dumps[0].name if dumps and dumps[0].gid == gid else None
    return f


def program(sc: Scenario, variant: str, *, hazards: bool | None = None, observed: Observed | None = None):
    """Goroutine 1 and how its run is judged (see module docstring).

    ``hazards`` (default: ``FUZZFARM_HAZARDS``) turns on the H3/H4 oracles. ``observed``, if
    given, is filled with what main saw.
    """
    hz = hazards_enabled(hazards)
    out = observed if observed is not None else Observed()

    def finish(ex):
        f = ex.report.failure
        hung = out.hung()
        if isinstance(f, gosim.Deadlock) and hung and not out.returned:
            note = (f"observed: H4 startup hang - BuildClusters never returns (goroutine(s) "
                    f"{', '.join(f'G{g}' for g in hung)} wait forever for a SelfSubjectAccessReview answer)")
            ex.scenario += "\n" + note
            ex.report.failure = _startup_hang(f, hung[0]) if hz else None
        return ex

    # H3: the retry goroutine lives as long as the process (see docstring): leaks only with hazards on
    return Program(scenario_main(sc, variant, out), run_kw={"check_leaks": hz}, finish=finish)


harness = declare(__name__, name=NAME, variants=("buggy", "fixed", "library-fixed"),
                  description="prow BuildClusters -> controller-runtime cache.defaultOpts: concurrent map writes on "
                              "a shared DefaultNamespaces map (prow #288; fix prow #299, controller-runtime #3078)",
                  decode=read_scenario, program=program, describe=lambda sc, variant: sc.describe(variant),
                  max_steps=MAX_STEPS, race=RACE)

if __name__ == "__main__":
    harness.fuzz()
