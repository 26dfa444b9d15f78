"""The shrinker alone, on tiny pure test functions (no harness, no process)."""

from fuzzfarm.collector.shrink import ExitReason, Probe, Shrinker


def shrink(test, data, expected="A", **kw):
    s = Shrinker(test, data, expected, **kw)
    reason = s.run()
    return s, reason


def test_shortlex_minimal_input_keeping_the_signature():
    def test(d):
        return Probe("A" if d.count(7) >= 2 else None)

    s, reason = shrink(test, bytes([9, 7, 200, 7, 13, 7, 99]))
    assert reason is ExitReason.finished
    assert s.best == bytes([7, 7])


def test_never_drifts_to_another_bug():
    # Any candidate shorter than 4 bytes, or with a zero byte, fails as bug "B".
    def test(d):
        if len(d) < 4 or 0 in d:
            return Probe("B")
        return Probe("A" if d[0] == 5 else None)

    s, _ = shrink(test, bytes([5, 90, 91, 92, 93, 94]))
    assert s.best == bytes([5, 1, 1, 1])
    assert s.rejected_other > 0
    assert test(s.best).signature == "A"


def test_schedule_phase_prefers_fewer_preemptions_over_fewer_bytes():
    # Each byte >= 100 is a "preemption"; the bug needs the byte 42 somewhere.
    def test(d):
        pre = [i for i, b in enumerate(d) if b >= 100]
        return Probe("A" if 42 in d else None, preemptions=len(pre), edits=tuple((i, 0) for i in pre),
                     consumed=len(d))

    s, _ = shrink(test, bytes([150, 42, 160, 170]))
    assert s.best_probe.preemptions == 0
    assert s.best == bytes([42])


def test_not_reproducible_input_is_returned_unchanged():
    s, reason = shrink(lambda d: Probe(None), b"abc")
    assert reason is ExitReason.not_reproducible and s.best == b"abc" and s.runs == 1


def test_run_budget_stops_it_with_a_valid_result():
    def test(d):
        return Probe("A" if sum(d) >= 500 else None)

    s, reason = shrink(test, bytes(range(1, 60)), max_runs=20)
    assert reason is ExitReason.max_runs and s.runs == 20
    assert test(s.best).signature == "A"


def test_deterministic():
    def test(d):
        return Probe("A" if len(d) >= 3 and d[-1] > d[0] else None)

    data = bytes([30, 1, 2, 3, 50, 60, 40])
    assert shrink(test, data)[0].best == shrink(test, data)[0].best


def test_bound_two_is_skipped_once_the_other_start_has_one_preemption():
    # Each byte >= 100 is a preemption; the bug needs the byte 42 and either three preemptions
    # or, with eight bytes or more to spare, one. The byte-minimal input (4 bytes, 3
    # preemptions) cannot lose one; the original input can (drop_preemptions) down to one. The
    # bounded search never finds a failing schedule: its second bound would spend BOUND2_RUNS
    # runs on the byte-minimal start for a result that the original's one preemption beats.
    def test(d):
        pre = [i for i, b in enumerate(d) if b >= 100]
        fails = 42 in d and (len(pre) >= 3 or (len(d) >= 8 and len(pre) >= 1))
        return Probe("A" if fails else None, preemptions=len(pre), edits=tuple((i, 0) for i in pre),
                     consumed=len(d), scenario="s")

    calls = []
    points = [(i, 1, (1, 2), False, "map") for i in range(300)]

    def bounded(data, overrides, events=True):
        calls.append(dict(overrides))
        return data, points, None

    original = bytes([200, 42, 150, 120, 130, 110, 170, 180, 190, 5])
    s, reason = shrink(test, original, bounded=bounded)
    assert reason is ExitReason.finished
    assert s.best_probe.preemptions == 1 and test(s.best).signature == "A"
    assert calls, "the bounded search ran on the byte-minimal start (3 preemptions)"
    assert all(len(o) <= 1 for o in calls), "bound 2 ran though a result with one preemption was found"
    assert len(calls) <= 1 + Shrinker.BOUND_POINTS


def test_bound_two_pairs_run_without_events_and_the_rest_with():
    # Three preemptions are needed whatever the schedule, so no bounded run fails and bound 2
    # spends its pairs; only the no-override and single-override runs need each point's event.
    def test(d):
        pre = [i for i, b in enumerate(d) if b >= 100]
        return Probe("A" if 42 in d and len(pre) >= 3 else None, preemptions=len(pre),
                     edits=tuple((i, 0) for i in pre), consumed=len(d), scenario="s")

    calls = []
    points = [(i, 1, (1, 2), False, "map") for i in range(20)]

    def bounded(data, overrides, events=True):
        calls.append((len(overrides), events))
        return data, points, None

    shrink(test, bytes([200, 42, 150, 120]), bounded=bounded)
    assert {n for n, _ in calls} == {0, 1, 2}
    assert all(events is (n < 2) for n, events in calls)


def test_bounded_candidates_are_run_once():
    # The bounded search's runs say each candidate's signature: one that did not fail, or failed
    # as another bug ("B"), is refused without a second run of the same bytes by the prober.
    def test(d):
        probed.append(d)
        pre = [i for i, b in enumerate(d) if b >= 100]
        return Probe("A" if 42 in d and len(pre) >= 3 else None, preemptions=len(pre),
                     edits=tuple((i, 0) for i in pre), consumed=len(d), scenario="s")

    probed, searched = [], []
    points = [(i, 1, (1, 2), False, "map") for i in range(20)]

    def bounded(data, overrides, events=True):
        candidate = bytes([7, len(searched) % 256, len(searched) // 256])  # a fresh input per run
        searched.append(candidate)
        return candidate, points, "B" if len(overrides) == 2 else None

    s, _ = shrink(test, bytes([200, 42, 150, 120]), bounded=bounded)
    assert any(len(c) == 3 for c in searched) and s.rejected_other > 0
    assert not set(searched) & set(probed), "a candidate the bounded search ran was run again"
    assert test(s.best).signature == "A"


def test_a_bounded_candidate_with_the_expected_signature_is_taken():
    # Bound 1 finds a schedule with one preemption failing as "A": it becomes the result.
    def test(d):
        pre = [i for i, b in enumerate(d) if b >= 100]
        return Probe("A" if 42 in d and (len(pre) >= 3 or d == bytes([42, 100])) else None,
                     preemptions=len(pre), edits=tuple((i, 0) for i in pre), consumed=len(d), scenario="s")

    points = [(i, 1, (1, 2), False, "map") for i in range(5)]

    def bounded(data, overrides, events=True):
        if len(overrides) == 1 and 3 in overrides:
            return bytes([42, 100]), points, "A"
        return data, points, None

    s, _ = shrink(test, bytes([200, 42, 150, 120]), bounded=bounded)
    assert s.best == bytes([42, 100]) and s.best_probe.preemptions == 1


def _bound_two_setup(pair_signature):
    """A shrink whose bounded search finds nothing in bounds 0 and 1 (three preemptions are
    needed by the test function): bound 2 runs its pairs, each pair's signature from
    ``pair_signature(index of the pair)``; the pairs' runs are returned."""
    def test(d):
        pre = [i for i, b in enumerate(d) if b >= 100]
        return Probe("A" if 42 in d and (len(pre) >= 3 or d == bytes([42, 100, 101])) else None,
                     preemptions=len(pre), edits=tuple((i, 0) for i in pre), consumed=len(d), scenario="s")

    pairs = []
    points = [(i, 1, (1, 2), False, "map") for i in range(40)]  # 40 first deviations, ~800 pairs

    def bounded(data, overrides, events=True):
        if len(overrides) < 2:
            return data, points, None
        sig = pair_signature(len(pairs))
        pairs.append(sig)
        return (bytes([42, 100, 101]) if sig == "A" else data), points, sig

    s, _ = shrink(test, bytes([200, 42, 150, 120]), bounded=bounded)
    return s, pairs


def test_bound_two_gives_up_after_a_streak_of_another_bugs_signature():
    # every pair fails as bug "B": the other bug fires before any window bound 2 can open
    s, pairs = _bound_two_setup(lambda i: "B")
    assert len(pairs) == Shrinker.BOUND2_OTHER_STREAK
    assert s.best_probe.preemptions == 3


def test_bound_two_goes_on_while_pairs_leave_the_other_bugs_reach():
    # "B" on most pairs, but one in 50 does not fail: no streak reaches the limit, and the
    # reproducer found at pair 700 (after 686 pairs failing as "B") is found
    n = Shrinker.BOUND2_OTHER_STREAK
    s, pairs = _bound_two_setup(lambda i: "A" if i == 700 else (None if i % 50 == 49 else "B"))
    assert len(pairs) == 701 and pairs.count("B") > 3 * n
    assert s.best == bytes([42, 100, 101]) and s.best_probe.preemptions == 2


def test_bound_two_finds_a_reproducer_right_below_the_streak_limit():
    n = Shrinker.BOUND2_OTHER_STREAK
    s, pairs = _bound_two_setup(lambda i: "A" if i == n - 1 else "B")
    assert len(pairs) == n and s.best == bytes([42, 100, 101])
