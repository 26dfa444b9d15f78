"""The reduction never turns a reachable failure into "proven" (issue 29).

Each probe in ``reduction_probes.py`` fails in a schedule the reduction used to cut as
equivalent to one already explored: a read with no scheduling point (``len(ch)``, ``len(m)``,
``m.snapshot()``), a timer fired early, a select case or map iteration start. The plain search
(``reduce=False``) finds each; the reduced search must find the same counterexample with the
same fewest preemptions. The closure variable is the one access gosim cannot see: there the
answer is a counterexample or a proof line that says what it assumes.

Mutations these catch (each checked by hand, see the branch's report): ``Footprints.access``
doing nothing (len_chan, len_map, snapshot); the data choices left out of the step hash in
``Footprints._close`` (select_choice, range_start); ``Footprints.timer`` not folding the
firing into the fingerprint (timer_early); ``assumption()`` returning "" (closure); the
cache key without ``dfs._timing`` (the timing_history regression).
"""

import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from fuzzfarm.engine.explore import ASSUMPTION, explore  # noqa: E402

import reduction_probes as P  # noqa: E402
from reducer_programs import ProgramHarness  # noqa: E402
from test_reducer_differential import differential  # noqa: E402

VISIBLE = ("len_chan", "len_map", "snapshot", "timer_early", "select_choice", "range_start")


@pytest.mark.parametrize("variant", VISIBLE)
def test_a_failure_behind_an_unscheduled_read_or_a_choice_is_found_with_the_reduction(variant):
    plain = explore(P, variant, b"", bound=2, reduce=False)
    red = explore(P, variant, b"", bound=2, reduce=True)
    assert plain.failure is not None and plain.failure["kind"] == "goroutine panic"
    assert red.failure is not None, red.verdict()
    assert red.failure["kind"] == plain.failure["kind"]
    assert red.failure["preemptions"] == plain.failure["preemptions"]
    assert "proven" not in red.verdict()


def test_the_len_chan_probe_needs_one_preemption():
    # the program: no schedule without a preemption fails, one with one does
    assert explore(P, "len_chan", b"", bound=0, reduce=False).proven
    assert explore(P, "len_chan", b"", bound=2).failure["preemptions"] == 1


def test_a_closure_variable_is_found_or_the_proof_says_what_it_assumes():
    plain = explore(P, "closure", b"", bound=2, reduce=False)
    assert plain.failure is not None  # the schedule exists in gosim ...
    red = explore(P, "closure", b"", bound=2, reduce=True)
    # ... the reduction cannot see the variable: it may call it proven only under its assumption
    assert red.failure is not None or (red.proven and red.verdict().endswith(ASSUMPTION)), red.verdict()
    assert "share state only through gosim objects" in ASSUMPTION and "race-free" in ASSUMPTION


def test_every_proven_line_of_a_reduced_search_states_the_assumption_and_a_plain_one_does_not():
    red = explore(P, "closure", b"", bound=1, reduce=True)
    assert red.proven and red.verdict().endswith(ASSUMPTION)
    assert red.to_json()["verdict"].endswith(ASSUMPTION)
    stopped = explore(P, "closure", b"", bound=2, reduce=True, max_schedules=3)
    assert not stopped.exhausted and stopped.proven_bound >= 0
    assert stopped.verdict().endswith(ASSUMPTION)  # "proven only without preemptions ..., assuming"
    plain = explore(P, "closure", b"", bound=0, reduce=False)
    assert plain.proven and "assuming" not in plain.verdict()


def test_prove_line_states_the_assumption_only_for_a_reduced_search():
    from fuzzfarm.collector.prove import proof_line

    base = {"exhausted": True, "schedules": 3, "bound": 2}
    assert proof_line({**base, "reduction": True}).endswith(ASSUMPTION)
    assert proof_line({**base, "reduction": False}) == "proven up to 2 preemptions for this scenario (3 schedules)"
    part = {"exhausted": False, "schedules": 9, "bound": 2, "proven_bound": 1, "proven_schedules": 4,
            "reduction": True}
    assert proof_line(part).endswith(ASSUMPTION)


def test_the_fix_proof_with_the_reduction_finds_the_len_chan_failure_and_qualifies_a_closure_proof():
    from fuzzfarm.collector.prove import prove_fixed
    from fuzzfarm.harness import Target

    probes = Target("reduction-probes", "reduction_probes")
    r = prove_fixed(probes, "len_chan", b"", bound=2, budget=60, reduce=True)
    assert r["line"].startswith("NOT fixed for this scenario: goroutine panic with 1 preemption(s)"), r["line"]
    c = prove_fixed(probes, "closure", b"", bound=1, budget=60, reduce=True)
    assert c["line"].startswith("proven up to 1 preemptions") and f", {ASSUMPTION};" in c["line"], c["line"]


def test_the_race_detector_sees_a_var_but_not_a_closure_variable():
    # With the race detector on (as in every harness run), the same program written with a
    # gosim Var is a data race in the first schedule; the closure variable is not checked at
    # all, which is why the proof line has to state the assumption.
    prog_var = {"chans": [0], "join": "chan", "bodies": [(("vload",),), (("vstore", 1),)], "target": None}
    red = explore(ProgramHarness(prog_var), "p", b"", bound=0)
    assert red.failure is not None and red.failure["kind"] == "data race"
    assert explore(P, "closure", b"", bound=0, reduce=False).failure is None  # nothing reported


# -- counterexamples the differential test found (shrunk by Hypothesis), kept as regressions.
# Each was red under one mutation of the reduction and green on the code as it is now.
REGRESSIONS = {
    # Footprints.access did nothing: main's len(m) and the other goroutine's write commuted
    "map_len_vs_write": {"chans": [0], "join": "chan", "target": (0, 0),
                         "bodies": [(("mset", "x", 1), ("mget", "x")), (("mlen",),)]},
    # data choices left out of the fingerprint: the select's two ready cases looked alike
    "select_cases": {"chans": [2], "join": "chan", "target": (0, 0),
                     "bodies": [(), (("send", 0, 1), ("sel", 0, 0))]},
    # ... and an outcome the reduced search never reached (a false proof for a final
    # assertion forbidding exactly that outcome)
    "select_outcome": {"chans": [2], "join": "chan", "target": ("all", ((2,), ((1, None),), ((1, None), 0))),
                       "bodies": [(("gosched",), ("gosched",), ("len", 0)), (("sel", 0, 0),),
                                  (("gosched",), ("sel", 0, 0), ("rcrit", (("vload",),)))]},
    # the cache key without the scheduler's timing history (dfs._timing): equal traces, but in
    # one run a goroutine waited from before the clock jump, so a timer's early firing was
    # allowed in one future and not in the other
    "timing_history": {"chans": [1, 1], "join": "chan", "target": (0, 0),
                       "bodies": [(("rcrit", (("tstop", 1.0), ("after", 0.05))),),
                                  (("gosched",), ("wcrit", (("tstop", 1.0), ("after", 0.05))))]},
    # timer firings left out of the fingerprint: fired or pending looked alike
    "sleep_fired": {"chans": [0], "join": "chan", "target": (0, 0),
                    "bodies": [(("sleep", 0.5),), (("sleep", 0.5),)]},
}


@pytest.mark.parametrize("name", sorted(REGRESSIONS))
def test_differential_regressions(name):
    assert differential(REGRESSIONS[name]) is not None


def test_each_read_without_a_scheduling_point_is_in_the_step_footprint():
    # The unit under the probes: right after each read, the running goroutine's open step
    # touches the object read (and nothing is recorded without an observer).
    from fuzzfarm import gosim
    from fuzzfarm.strategies.dfs import DFSStrategy

    strat = DFSStrategy(cache={})
    seen = []

    def main():
        ch, m, rw = gosim.Chan(1, name="ch"), gosim.Map(name="m"), gosim.RWMutex(name="rw")
        obs = strat.observer
        for name, key, read in (("len(ch)", "o:ch", lambda: len(ch)), ("len(m)", "o:m", lambda: len(m)),
                                ("snapshot", "o:m", m.snapshot), ("writer_pending", "o:rw", lambda: rw.writer_pending)):
            gosim.gosched()  # a fresh step that touches nothing yet
            before = set(obs.open[1].keys)
            read()
            seen.append((name, key in obs.open[1].keys and key not in before))

    gosim.run(main, strategy=strat)
    assert seen == [("len(ch)", True), ("len(m)", True), ("snapshot", True), ("writer_pending", True)]
