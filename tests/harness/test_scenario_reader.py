"""The scenario reader: atheris-compatible integers from the end of an input, zeros past its
start, and the reason it exists: a random/PCT walk's run written back as bytes replays exactly,
short scenarios included."""

import random

import atheris
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fuzzfarm import harness as H
from fuzzfarm.harness import ScenarioReader
from fuzzfarm.strategies import PCTStrategy, RandomStrategy

SPANS = st.one_of(st.integers(0, 300), st.sampled_from([255, 256, 1000, 65535, 65536, 2**40, 2**64 - 1]))


@settings(max_examples=400, deadline=None)
@given(data=st.binary(max_size=24), reads=st.lists(st.tuples(st.integers(-1000, 1000), SPANS), max_size=10))
def test_reads_what_atheris_reads_while_the_input_lasts(data, reads):
    fdp, rd = atheris.FuzzedDataProvider(data), ScenarioReader(data)
    for lo, span in reads:
        had = rd.schedule_end
        got = rd.int_in_range(lo, lo + span)
        want = fdp.ConsumeIntInRange(lo, lo + span)
        if rd.short == 0 or had == 0:  # whole read from the input, or none of it (both give lo)
            assert got == want and rd.schedule_end == fdp.remaining_bytes()
        else:  # a read cut by the input's start: the reader goes on with zeros, as padding would
            assert got == ScenarioReader(bytes(rd.short) + data[:had]).int_in_range(lo, lo + span)
            break


def test_past_the_start_it_reads_zeros_and_counts_them():
    rd = ScenarioReader(b"\x07")
    assert rd.int_in_range(0, 255) == 7 and rd.short == 0
    assert rd.int_in_range(3, 9) == 3 and rd.short == 1
    assert rd.int_in_range(0, 1000) == 0 and rd.short == 3
    assert rd.pick("abc") == "a" and rd.short == 4 and rd.schedule_end == 0
    with pytest.raises(ValueError):
        rd.int_in_range(5, 4)


@pytest.mark.parametrize("name", ["checker", "cluster-builder", "examples"])
@pytest.mark.parametrize("make", [RandomStrategy, lambda seed: PCTStrategy(seed)], ids=["random", "pct"])
def test_a_walks_run_written_as_bytes_replays_exactly(name, make):
    """Events as short as 0 bytes (the scenario reads zeros) and as long as 64: the bytes
    reproducer gives the same scenario, the same decisions and the same failure."""
    mod = H.get(name).load()
    rng = random.Random(name)
    strategy = make(11)
    failures = runs = 0
    while runs < 150 or (failures < 3 and runs < 800):  # failing runs round-trip too
        runs += 1
        events = rng.randbytes(rng.choice((0, 1, 2, 3, 5, 8, 16, 64)))
        with H.schedule_from(strategy):
            walk = mod.execute(events, "buggy")
        repro = walk.as_bytes_input(events)
        again = mod.execute(repro, "buggy")
        assert again.scenario == walk.scenario, (runs, events, repro)
        assert again.report.decisions == walk.report.decisions, (runs, events, repro)
        f, g = walk.failure, again.failure
        assert (f is None) == (g is None) and (f is None or (f.kind, f.crash_state) == (g.kind, g.crash_state))
        failures += f is not None
    assert failures > 0  # the round trip was also checked on failing runs
