"""The starvation bound a harness run goes by (``FUZZFARM_MAX_STARVATION_S``, docs/timing.md):
reading, parsing and wording it, and labelling a finding against the realism bound."""

from __future__ import annotations

import os
import sys


# The realism bound (docs/timing.md): the longest virtual time a runnable goroutine waits in a
# realistic schedule. 0.1 s is ten of Go's 10 ms scheduler time slices: a goroutine that waited
# longer ran on a starved machine (GC assists, a full run queue, a loaded host). By default it
# is a label on findings, not a filter on the search (LABEL): real bugs that need more (HC-20)
# are still found, and say how much they need.
DEFAULT_MAX_STARVATION_S = 0.1
MAX_STARVATION_ENV = "FUZZFARM_MAX_STARVATION_S"
# The default setting: runs keep the realism bound until a timer could fire past it; then one
# schedule decision in LIFT_ONE_IN options lets the run go on without it (gosim Runtime
# ``lift_one_in``), so about one such run in LIFT_ONE_IN searches unbounded starvation.
LABEL = "label"
LIFT_ONE_IN = 4


def max_starvation_s() -> float | str | None:
    """The starvation bound of harness runs: ``FUZZFARM_MAX_STARVATION_S`` (seconds: a filter;
    ``none``: no bound in time; ``label``: the realism bound as a label, see :data:`LABEL`),
    else ``label``. An input replays the same only under the same setting. Exits with a clear
    message for a bad value. A campaign's own bound (``fuzzfarm submit --max-starvation``)
    reaches its runs as this variable."""
    raw = os.environ.get(MAX_STARVATION_ENV)
    if raw is None or raw == "":
        return LABEL
    try:
        return parse_max_starvation(raw)
    except ValueError as e:
        sys.stderr.write(f"fuzzfarm: {MAX_STARVATION_ENV}={e}; unset it for the default ({LABEL})\n")
        raise SystemExit(2)


def parse_max_starvation(raw) -> float | str | None:
    """A starvation bound given as text or a number: seconds >= 0 (a filter), ``none`` (no bound
    in time) as None, ``label`` (the realism bound as a label, :data:`LABEL`) as ``"label"``.
    ValueError (saying what was given) for anything else."""
    if isinstance(raw, str) and raw.strip().lower() == "none":
        return None
    if isinstance(raw, str) and raw.strip().lower() == LABEL:
        return LABEL
    v = -1.0
    # a bool is not a number of seconds (float(True) is 1.0); "1_0" is Python syntax, not a
    # number a user writes; inf is not finite JSON (repro.json) - "none" says "no bound"
    if not isinstance(raw, bool) and not (isinstance(raw, str) and "_" in raw):
        try:
            v = float(raw)
        except (TypeError, ValueError):
            pass
    if not 0 <= v < float("inf"):  # also nan
        raise ValueError(f"{raw!r} is not a finite number of seconds >= 0, 'none' (no bound) or 'label' "
                         f"(the default: the {DEFAULT_MAX_STARVATION_S:g} s realism bound as a label)")
    return v


def max_starvation_text(bound: float | str | None) -> str:
    """The inverse of :func:`parse_max_starvation`: what ``FUZZFARM_MAX_STARVATION_S`` is set
    to for ``bound`` (``repr`` of the float, so the child parses back the very same number)."""
    return "none" if bound is None else LABEL if bound == LABEL else repr(float(bound))


def bound_words(bound) -> str:
    """A setting as users read it: ``0.5 s``, ``none``, or ``label (0.1 s realism bound)``."""
    if bound == LABEL:
        return f"label ({DEFAULT_MAX_STARVATION_S:g} s realism bound, unbounded runs searched too)"
    return "none" if bound is None else f"{float(bound):g} s"


def starved_goroutines(outcome: dict, realism_s: float = DEFAULT_MAX_STARVATION_S) -> list:
    """``[[gid, name], ...]`` of a run outcome (``fuzzfarm.harness.runone``): every goroutine kept
    waiting past the realism bound, else the one that waited longest (empty: none waited)."""
    over = [[r[0], r[1]] for r in outcome.get("starved_all") or () if r[2] > realism_s]
    if over:
        return over
    return [list(outcome["starved"])] if outcome.get("starved") else []


def starvation_need(starvation_s, starved=None, realism_s: float = DEFAULT_MAX_STARVATION_S) -> str:
    """What a finding needs, labelled against the realism bound (docs/timing.md): e.g. ``needs
    G3 (processor.run) runnable but not running for 1 s (over the 0.1 s realism bound)``.
    ``starved``: ``[gid, name]``, a list of them (:func:`starved_goroutines`) or None;
    ``starvation_s`` None: unknown."""
    if starvation_s in (None, ""):
        return "starvation not measured"
    s = float(starvation_s)
    if starved and not isinstance(starved[0], (list, tuple)):
        starved = [starved]
    who = " and ".join(f"G{g[0]} ({g[1]})" for g in starved) if starved else "a goroutine"
    if s <= 0:
        return f"realistic: needs no goroutine kept runnable by early timer firings (within the {realism_s:g} s realism bound)"
    side = "over" if s > realism_s else "within"
    return f"needs {who} runnable but not running for {s:g} s ({side} the {realism_s:g} s realism bound)"


def is_realistic(starvation_s, realism_s: float = DEFAULT_MAX_STARVATION_S) -> bool:
    """True when a finding needs no more starvation than the realism bound (unknown: True)."""
    return starvation_s in (None, "") or float(starvation_s) <= realism_s
