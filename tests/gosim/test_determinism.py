"""Determinism (issue 2, a hard requirement): the same input gives the same decisions, trace and
failure, in this process, under replay, and in processes with different PYTHONHASHSEED."""

import hashlib
import json
import os
import random
import subprocess
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzzfarm import gosim
from fuzzfarm.strategies import BytesStrategy, PCTStrategy, RandomStrategy, ReplayStrategy
from fuzzfarm.strategies.recording import RecordingStrategy

import gosim_programs as P

HERE = os.path.dirname(os.path.abspath(__file__))

op = st.tuples(st.sampled_from(P.OPS), st.integers(0, 2), st.sampled_from(P.KEYS),
               st.sampled_from((0.5, 1.0, 2.5))).map(list)
programs = st.lists(st.lists(op, max_size=8), min_size=1, max_size=4)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(prog=programs, data=st.binary(max_size=96))
def test_same_program_and_bytes_give_the_same_run(prog, data):
    a = P.run_json(prog, BytesStrategy(data))
    b = P.run_json(prog, BytesStrategy(data))
    assert a == b


@SETTINGS
@given(prog=programs, data=st.binary(max_size=96))
def test_recorded_decisions_replay_to_the_same_run(prog, data):
    first = gosim.run(P.build(prog), strategy=BytesStrategy(data), trace=True, max_steps=3000)
    again = gosim.run(P.build(prog), strategy=ReplayStrategy(first.decisions), trace=True, max_steps=3000)
    assert again.to_json() == first.to_json()


@SETTINGS
@given(prog=programs, seed=st.integers(0, 2**32), pct=st.booleans())
def test_random_and_pct_schedules_replay_as_bytes(prog, seed, pct):
    rec = RecordingStrategy(PCTStrategy(seed) if pct else RandomStrategy(seed))
    first = gosim.run(P.build(prog), strategy=rec, trace=True, max_steps=3000)
    again = gosim.run(P.build(prog), strategy=BytesStrategy(bytes(rec.recorded)), trace=True, max_steps=3000)
    assert again.to_json() == first.to_json()


def test_ten_runs_of_one_input_give_one_distinct_trace():
    rng = random.Random(7)
    for _ in range(20):
        prog = P.random_program(rng)
        data = rng.randbytes(40)
        assert len({P.run_json(prog, BytesStrategy(data)) for _ in range(10)}) == 1


_CHILD = """
import hashlib, json, random, sys
sys.path.insert(0, {here!r})
import gosim_programs as P
from fuzzfarm.strategies import BytesStrategy, PCTStrategy
rng = random.Random(2024)
h = hashlib.sha256()
kinds = []
for i in range(60):
    prog = P.random_program(rng)
    data = rng.randbytes(rng.randrange(64))
    out = P.run_json(prog, BytesStrategy(data))
    h.update(out.encode())
    kinds.append(json.loads(out)["failure"] and json.loads(out)["failure"]["kind"])
    h.update(P.run_json(prog, PCTStrategy(i)).encode())
print(json.dumps({{"sha": h.hexdigest(), "kinds": kinds}}))
"""


def test_runs_are_identical_across_processes_with_different_hash_seeds():
    outs = []
    for seed in ("0", "1", "4242", "random"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        proc = subprocess.run([sys.executable, "-c", _CHILD.format(here=HERE)], env=env, capture_output=True,
                              text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        outs.append(json.loads(proc.stdout))
    assert len({o["sha"] for o in outs}) == 1
    kinds = outs[0]["kinds"]
    assert len(set(kinds)) >= 3, kinds  # the programs exercise several failure kinds and clean runs


class _NoFastPath:
    """The same bytes strategy seen through its public picks only (no byte_stream): the
    runtime's generic paths must decide exactly as its byte-stream fast path does."""

    def __init__(self, data):
        self.s = BytesStrategy(data)

    def begin(self, rt):
        self.s.begin(rt)

    def pick(self, runnable, current, timer):
        return self.s.pick(runnable, current, timer)

    def pick_yield(self, runnable, current, timer):
        return self.s.pick_yield(runnable, current, timer)

    def pick_index(self, n, what):
        return self.s.pick_index(n, what)


@SETTINGS
@given(prog=programs, data=st.binary(max_size=96))
def test_fast_paths_decide_exactly_as_the_generic_and_traced_paths(prog, data):
    fast = gosim.run(P.build(prog), strategy=BytesStrategy(data), max_steps=3000)
    generic = gosim.run(P.build(prog), strategy=_NoFastPath(data), max_steps=3000)
    traced = gosim.run(P.build(prog), strategy=BytesStrategy(data), trace=True, max_steps=3000)
    logged = gosim.run(P.build(prog), strategy=BytesStrategy(data, log=True), max_steps=3000)
    a, b, c, d = (dict(r.to_json(), trace=None) for r in (fast, generic, traced, logged))
    assert a == b == c == d


def test_nothing_a_schedule_depends_on_reads_the_clock_random_ids_or_hashes():
    """Banned in the runtime and strategies (threaded.py, the stress baseline, is the one
    deliberate exception): wall clock, module-level random, id(), hash(), threads."""
    import re

    root = os.path.join(os.path.dirname(os.path.dirname(HERE)), "fuzzfarm")
    banned = re.compile(r"\btime\.(time|monotonic|perf_counter|sleep)\b|\bthreading\b|(?<![\w.])id\(|"
                        r"(?<![\w.])hash\(|\brandom\.(random|randint|randrange|choice|shuffle|sample|seed)\(|"
                        r"^import time|^from time ")
    offenders = []
    for sub in ("gosim", "strategies", "examples"):
        for fn in sorted(os.listdir(os.path.join(root, sub))):
            if not fn.endswith(".py") or fn == "threaded.py":
                continue
            with open(os.path.join(root, sub, fn)) as fh:
                for n, line in enumerate(fh, 1):
                    code = line.split("#", 1)[0]
                    if "``" in code or code.strip().startswith(("*", "\"\"\"")):
                        continue  # prose in docstrings
                    if banned.search(code):
                        offenders.append(f"{sub}/{fn}:{n}: {line.strip()}")
    assert offenders == []
