"""benchmarks/peers.json (the recorded peer figures, benchmarks/peers_measure.py) has what
benchmarks/portfolio.py reads, and portfolio's distinct-schedules ratio is computed from it.
Fast: no walk process and no peer run (the peer needs Python >= 3.12; fuzzfarm's venv is 3.11)."""

import json
import os

import pytest

from benchmarks import peers_measure as M
from benchmarks import portfolio


def _recorded() -> dict:
    if not os.path.exists(portfolio.PEERS):
        pytest.skip("no benchmarks/peers.json recorded")
    with open(portfolio.PEERS) as f:
        return json.load(f)


def test_recorded_peers_have_the_fields_portfolio_reads():
    data = _recorded()
    for toy in M.TOYS:
        p = data[toy]
        for k in M.FIELDS:
            assert k in p, (toy, k)
        assert isinstance(p["distinct_per_s"], (int, float)) and p["distinct_per_s"] > 0
        assert p["distinct_per_s"] <= p["runs_per_s"]
        assert p["peer"].startswith("interleave-test ") and p["version"] in p["peer"]
        # the recorded figure is the peer's best configuration measured, as the docstring says
        assert p["distinct_per_s"] == max(c["distinct_per_s"] for c in p["configs"])
        assert {c["strategy"] for c in p["configs"]} >= {"random", "pct:2", "pct:3", "pct:5"}


def test_portfolio_ratio_divides_by_the_recorded_peer_figure():
    data = _recorded()
    assert portfolio._peers() == data
    row = {"toy": "late_cancel", "strategy": "mix", "fresh": True, "seconds": 5.0, "execs": 9000, "distinct": 9000,
           "distinct_per_s": 1800.0, "distinct_share": 1.0}
    d = portfolio.with_peer(dict(row), data)
    p = data["late_cancel"]
    assert d["peer"] == p["peer"] and d["peer_distinct_per_s"] == p["distinct_per_s"]
    assert d["ratio_vs_peer"] == round(1800.0 / p["distinct_per_s"], 2)
    line = portfolio.distinct_headlines({"distinct": [d], "peers_file": "benchmarks/peers.json"})[0]
    assert f"÷ peer {p['peer']}" in line and str(d["ratio_vs_peer"]) in line
    # a toy with no recorded figure gets no ratio
    assert "ratio_vs_peer" not in portfolio.with_peer(dict(row, toy="other"), data)


def test_record_picks_the_best_configuration_and_says_how():
    def cfg(toy, s, g, dps, rps):
        return {"toy": toy, "strategy": s, "granularity": g, "seconds": 1.0, "runs": int(rps), "distinct": int(dps),
                "cpu_s": 1.0, "runs_per_s": rps, "distinct_per_s": dps, "distinct_share": dps / rps, "exhausted": False}

    raw = {"version": "0.1.0", "python": "3.12.1", "distinct": [], "first_bug": []}
    for toy in M.TOYS:
        for s, g, dps, rps, found in (("random", "opcode", 100.0, 100.0, 1), ("pct:3", "line", 150.0, 200.0, 3)):
            raw["distinct"].append(cfg(toy, s, g, dps, rps))
            raw["first_bug"].append({"toy": toy, "strategy": s, "granularity": g, "per_seed": [
                {"seed": i, "found": i < found, "seconds": 0.01 * (i + 1), "runs": 1} for i in range(3)]})
    rec = M.record(raw, seconds=1.0, bug_seconds=1.0, startup=0.1, load_before={}, load_after={}, date="d")
    for toy in M.TOYS:
        assert rec[toy]["strategy"] == "pct:3" and rec[toy]["distinct_per_s"] == 150.0
        assert rec[toy]["first_bug_s"] == 0.02  # median of the 3 seeds
        assert rec[toy]["configs"][0]["first_bug_s"] is None  # found by 1 seed of 3: no median time
        assert rec[toy]["configs"][0]["first_bug_found"] == "1/3"
        assert all(k in rec[toy] for k in M.FIELDS)


def test_no_peer_is_one_line_and_exit_2(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(M, "ROOT", str(tmp_path))
    monkeypatch.delenv("FUZZFARM_PEER_PYTHON", raising=False)
    monkeypatch.setattr(M.sys, "executable", str(tmp_path / "none"))
    assert M.main(["--out", str(tmp_path / "p.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install interleave-test==0.1.0" in err
    assert not (tmp_path / "p.json").exists()


def _peer_python():
    py = os.path.join(M.ROOT, ".venv-peers", "bin", "python")
    py = os.environ.get("FUZZFARM_PEER_PYTHON") or py
    if not os.path.exists(py):
        pytest.skip("no peer interpreter (.venv-peers): see benchmarks/peers_measure.py")
    return py


def test_peer_distinct_counts_decision_sequences():
    """On the real peer: DFS never reruns a schedule (distinct == runs); PCT at depth 2 reruns
    many (distinct < runs), so the count is neither constant nor one per run."""
    py = _peer_python()
    dfs = M._peer_rate(py, "late_cancel", "dfs:2", "line", 0.3)
    pct = M._peer_rate(py, "late_cancel", "pct:2", "line", 0.3)
    assert dfs["runs"] > 5 and dfs["distinct"] == dfs["runs"]
    assert 1 < pct["distinct"] < pct["runs"]
