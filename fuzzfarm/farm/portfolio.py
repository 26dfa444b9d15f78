"""The ``mix`` campaign strategy, the default: which engine each slice of a job runs, and the
campaign's counts that weight it (docs/STRATEGIES.md#mix).

Two engines: ``walk-mix`` (one walk process running pct:2 / pct:3 / pct:5 / random, reweighted
run by run, ``fuzzfarm.strategies.mix``) and ``bytes`` (atheris). Each job's first two slices
take them in turn (job 0 ``walk-mix`` then ``bytes``, job 1 ``bytes`` then ``walk-mix``, ...),
and a job's first slice is at most half the job: every engine gets a turn in every job, even a
short one-job campaign (a harness only one engine can crash is found either way). Every later slice is chosen by
Thompson sampling over the engines on a Gamma-Poisson model of new buckets per second of
fuzzing: Gamma(1 + buckets first found by that engine, 1 + its seconds / SECONDS_UNIT), drawn
with a ``random.Random`` seeded by (campaign, job, slice). A mix job's slices are at most
``SLICE_S`` (60 s, ``FUZZFARM_MIX_SLICE_S``) long, so the choice is made again every minute. The choice depends only on what is
in Redis and on those ids, never on the wall clock or an unseeded RNG.

Redis (one hash per campaign, ``fuzzfarm:campaign:<cid>:mix``, removed with the campaign by ``gc``):

* ``<engine>.s``: seconds fuzzed by that engine (float, summed at each slice's end);
* ``arm.<arm>.runs|finds|cost``: the walk arms' counts, summed over walk-mix slices; the next
  walk-mix slice starts from them (its prior), so a campaign learns across slices and jobs;
* ``crash.<sha256>``: ``<engine> <arm> <first seen>`` for each crash input a mix slice reported
  (the first report wins): a bucket is credited to the engine whose crash reached it first.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import time

from fuzzfarm.farm import store as S
from fuzzfarm import settings

ENGINES = ("walk-mix", "bytes")
SECONDS_UNIT = 60.0
# A mix job's slices are at most this long (and FUZZFARM_MAX_SLICE_S), so the engine is chosen
# again every minute: a slice costs one fuzz-process start (0.3-1.5 s) and a corpus sync.
SLICE_S = settings.number("FUZZFARM_MIX_SLICE_S", 60.0, above=True)
MIX = "mix"


def _rng(cid: str, n: int, k: int) -> random.Random:
    h = hashlib.sha1(f"mix:{cid}:{n}:{k}".encode()).hexdigest()
    return random.Random(int(h[:16], 16))


def counts(st: S.Store, cid: str) -> dict:
    """{"engines": {engine: {"s": seconds, "buckets": n}}, "arms": {arm: {runs, finds, cost}}}."""
    raw = st.mix_counts(cid)
    engines = {e: {"s": 0.0, "buckets": 0} for e in ENGINES}
    arms: dict[str, dict] = {}
    firsts: dict[str, tuple[float, str]] = {}  # bucket -> (first seen, engine)
    shas = []
    for f, v in raw.items():
        f = f.decode() if isinstance(f, bytes) else f
        v = v.decode() if isinstance(v, bytes) else v
        if f.endswith(".s") and f[:-2] in engines:
            engines[f[:-2]]["s"] = float(v)
        elif f.startswith("arm."):
            _, rest = f.split(".", 1)
            arm, stat = rest.rsplit(".", 1)
            arms.setdefault(arm, {"runs": 0, "finds": 0, "cost": 0})[stat] = int(float(v))
        elif f.startswith("crash."):
            eng, _arm, seen = v.split(" ")
            shas.append((f[6:], eng, float(seen)))
    if shas:
        camp = st.campaign(cid) or {}
        bids = st.crash_fields(camp.get("harness", ""), camp.get("variant", ""), [sha for sha, _, _ in shas], "bucket")
        for (sha, eng, seen), bid in zip(shas, bids):
            bid = bid.decode() if isinstance(bid, bytes) else bid
            if bid and eng in engines and (bid not in firsts or (seen, eng) < firsts[bid]):
                firsts[bid] = (seen, eng)
    for _, eng in firsts.values():
        engines[eng]["buckets"] += 1
    return {"engines": engines, "arms": dict(sorted(arms.items()))}


def engine_weights(c: dict) -> dict[str, float]:
    """Each engine's share of the posterior mean rate of new buckets per second."""
    means = {e: (1 + v["buckets"]) / (1 + v["s"] / SECONDS_UNIT) for e, v in c["engines"].items()}
    tot = sum(means.values()) or 1.0
    return {e: round(m / tot, 3) for e, m in means.items()}


def choose(st: S.Store, spec: dict) -> tuple[str, dict | None]:
    """(engine, prior for walk-mix) for this slice of a ``mix`` job."""
    cid, n, k = spec["campaign"], int(spec["job"]), int(spec.get("slice", 0))
    c = counts(st, cid)
    if k < len(ENGINES):  # every job runs each engine once first (its first slice is half the job)
        engine = ENGINES[(n + k) % len(ENGINES)]
    else:
        rng = _rng(cid, n, k)
        best, best_v = ENGINES[0], -1.0
        for e in ENGINES:
            v = rng.gammavariate(1 + c["engines"][e]["buckets"], 1.0 / (1 + c["engines"][e]["s"] / SECONDS_UNIT))
            if v > best_v:
                best, best_v = e, v
        engine = best
    return engine, (c["arms"] or None) if engine == "walk-mix" else None


def note_crash(st: S.Store, cid: str, sha: str, engine: str, arm: str = "-") -> None:
    """A mix slice running ``engine`` reported crash ``sha`` (the first note wins)."""
    st.mix_note_crash(cid, sha, f"{engine} {arm or '-'} {time.time():.6f}")


def record(st: S.Store, cid: str, engine: str, seconds: float, walk: dict | None) -> None:
    """A mix slice ended: add its fuzzing seconds and its walk arms' counts."""
    st.mix_add(cid, {f"{engine}.s": max(0.0, float(seconds))},
               {f"arm.{arm}.{stat}": int(c.get(stat, 0) or 0)
                for arm, c in ((walk or {}).get("arms") or {}).items() for stat in ("runs", "finds", "cost")})


def status_line(st: S.Store, cid: str) -> str:
    """One line for ``fuzzfarm status``: the mix's current weights."""
    c = counts(st, cid)
    w = engine_weights(c)
    parts = [f"{e} {w[e]:.2f} ({c['engines'][e]['buckets']} bucket(s) first, {c['engines'][e]['s']:.0f} s)"
             for e in ENGINES]
    line = "mix weights (share of new buckets per second, posterior mean): " + ", ".join(parts)
    if c["arms"]:
        from fuzzfarm.strategies.mix import MixStrategy

        m = MixStrategy(0, arms=tuple(c["arms"]), prior=c["arms"])
        line += "; walk arms: " + ", ".join(f"{a} {v:.2f}" for a, v in m.weights().items())
    return line


def summary(st: S.Store, cid: str) -> dict:
    """The same as JSON (``status --json``, the web view)."""
    c = counts(st, cid)
    return {**c, "weights": engine_weights(c)}


def to_json(obj) -> str:
    return json.dumps(obj, sort_keys=True)
