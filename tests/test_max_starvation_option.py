"""``--max-starvation SECONDS|none``: a bad value is one line and exit 2 before anything runs;
the bound a child process gets follows campaign option > worker env > default; a reproducer
says which bound to replay under. (The farm side: tests/faults/test_campaign_starvation.py.)"""

from __future__ import annotations

import subprocess

import pytest

from fuzzfarm import harness as H
from fuzzfarm.collector import recorded_max_starvation
from fuzzfarm.harness.target import resolve


def cli_here(capsys, monkeypatch, *args):
    from fuzzfarm import cli as C
    monkeypatch.setenv("FUZZFARM_REDIS_URL", "redis://127.0.0.1:1/0")  # nothing listens: usage errors come first
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        C.main(list(args))
    got = capsys.readouterr()
    return subprocess.CompletedProcess(args, e.value.code, got.out, got.err)


@pytest.mark.parametrize("args", [
    ("submit", "checker", "--max-starvation", "soon"),
    ("submit", "checker", "--max-starvation", "-1"),
    ("submit", "checker", "--max-starvation", "nan"),
    ("submit", "checker", "--max-starvation", ""),
    ("submit", "checker", "--strategy", "dfs", "--max-starvation", "-0.5"),
    ("ci", "checker", "--max-starvation", "1s"),
    ("submit", "checker", "--max-starvation", "inf"),  # not finite JSON in repro.json: 'none' says it
    ("submit", "checker", "--max-starvation", "1e309"),
    ("ci", "checker", "--max-starvation", "1_000"),
])
def test_a_bad_bound_is_one_line_and_exit_2(capsys, monkeypatch, args):
    p = cli_here(capsys, monkeypatch, *args)
    assert p.returncode == 2, (p.stdout, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "--max-starvation" in lines[0] and "seconds" in lines[0] and "none" in lines[0], lines
    assert "Traceback" not in p.stderr and "127.0.0.1" not in p.stderr  # refused before Redis is asked


def test_the_campaigns_bound_beats_the_workers_and_the_worker_beats_the_default(monkeypatch):
    monkeypatch.setenv(H.MAX_STARVATION_ENV, "0.5")  # the worker's own setting
    t = resolve("checker")
    assert t.child_env()[H.MAX_STARVATION_ENV] == "0.5"  # no campaign bound: the worker's goes on
    assert resolve("checker", "none").child_env()[H.MAX_STARVATION_ENV] == "none"
    assert resolve("checker", 2).child_env({"FUZZFARM_VARIANT": "buggy"})[H.MAX_STARVATION_ENV] == "2.0"
    assert resolve(t, 0.25).max_starvation == "0.25" and resolve(t, None) is t
    monkeypatch.delenv(H.MAX_STARVATION_ENV)
    assert H.MAX_STARVATION_ENV not in t.child_env() and H.max_starvation_s() == H.LABEL == "label"
    with pytest.raises(ValueError):
        resolve("checker", "-3")


def test_the_triage_bound_is_the_campaigns_else_the_collectors(store, monkeypatch):
    from fuzzfarm.farm.triage import starvation_bound

    def campaign(**own):
        return store.create_campaign({"harness": "checker", "variant": "buggy", "strategy": "random", "jobs": 1,
                                      "duration_s": 1.0, "harness_hash": "h" * 64, "version": "0", **own})

    none, three, unset = campaign(max_starvation_s="none"), campaign(max_starvation_s=3.0), campaign()
    monkeypatch.delenv(H.MAX_STARVATION_ENV, raising=False)
    assert [starvation_bound(store, c) for c in (none, three, unset)] == ["none", "3.0", "label"]
    monkeypatch.setenv(H.MAX_STARVATION_ENV, "none")  # this collector's own setting
    assert [starvation_bound(store, c) for c in (three, unset, "no-such-campaign")] == ["3.0", "none", "none"]


def test_a_reproducer_names_the_bound_to_replay_under():
    assert recorded_max_starvation({"max_starvation_s": None}) == "none"  # recorded: no bound in time
    assert recorded_max_starvation({"max_starvation_s": 0.1}) == 0.1
    assert recorded_max_starvation({}) is None  # an older reproducer: this machine's setting


def test_the_parser_round_trips_every_bound():
    for b in (0.0, 0.1, 1 / 3, 20.0, None, "label"):
        assert H.parse_max_starvation(H.max_starvation_text(b)) == b
    assert H.parse_max_starvation(" None ") is None and H.parse_max_starvation(" Label ") == "label"


@pytest.mark.parametrize("raw", [True, False, "", "1_0", "inf", "-inf", float("inf"), None, [], "0x10"])
def test_the_parser_refuses_what_is_no_finite_number_of_seconds(raw):
    """A bool in a hand-edited repro.json is not a bound (float(True) would be 1 s), nor is an
    infinite one (written out it is not JSON; 'none' is the unbounded bound)."""
    with pytest.raises(ValueError, match="none"):
        H.parse_max_starvation(raw)


def test_a_declared_harness_s_own_bound_wins_over_the_worker_s(monkeypatch):
    """``declare(..., max_starvation_s=S)`` (what ``fuzzfarm port --max-starvation`` writes): every
    run of the harness goes by S, whatever ``FUZZFARM_MAX_STARVATION_S`` says (docs/timing.md, "A
    campaign's own bound", rule 1), and a bad S is an error naming the harness at import."""
    from fuzzfarm import gosim
    from fuzzfarm.harness import declare

    def program(scenario, variant):
        def main():
            timeout = gosim.after(0.06)  # a scaled program's timeout: 60 "seconds" in milliseconds
            done = gosim.Chan()
            gosim.go(done.close)
            i, _, _ = gosim.select(gosim.recv_case(done), gosim.recv_case(timeout))
            assert i == 0, "timed out"  # only a worker starved 60 ms (over the 0.1 ms bound) misses it
        return main
    h = declare("scaled_clock", name="scaled", variants=("port",), description="d",
                decode=lambda rd: None, program=program, max_starvation_s=0.0001)
    monkeypatch.setenv(H.MAX_STARVATION_ENV, "label")
    ex = h.execute(b"\x01" * 64, "port")
    assert ex.report.failure is None, ex.report.failure
    assert ex.max_starvation_s == 0.0001 and ex.report.max_starvation_s == 0.0001
    with pytest.raises(ValueError, match="harness 'bad': max_starvation_s: 'soon' is not"):
        declare("bad_mod", name="bad", variants=("port",), description="d", decode=lambda rd: None,
                program=program, max_starvation_s="soon")
