"""Smoke test of the runtime microbenchmark: it runs (quick mode) and its JSON has the
documented shape. Timings are not checked (docs/TRAPS.md#g24: the machine is noisy)."""

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "benchmarks", "runtime_bench.py")


def test_runtime_bench_quick_json_shape():
    proc = subprocess.run([sys.executable, BENCH, "--quick", "--json", "--seconds", "0.1"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    res = json.loads(proc.stdout)
    assert res["target_ratio"] == 0.5
    rows = res["rows"]
    assert {(r["goroutines"], r["mode"]) for r in rows} == {(2, "uninstrumented"), (16, "uninstrumented"),
                                                             (2, "atheris"), (16, "atheris")}
    for r in rows:
        for key in ("decisions_per_run", "runtime_decisions_per_s", "runtime_runs_per_s",
                    "limit_decisions_per_s", "limit_runs_per_s", "ratio"):
            assert isinstance(r[key], float) and r[key] > 0, (key, r)
        assert abs(r["ratio"] - r["runtime_decisions_per_s"] / r["limit_decisions_per_s"]) < 1e-9
        assert r["decisions_per_run"] > 100
        assert isinstance(r["scenario"], str)
    # the table renders every row from the same figures
    sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
    try:
        import runtime_bench
    finally:
        sys.path.pop(0)
    table = runtime_bench.render(res)
    assert table.count("uninstrumented") == 2 and table.count("atheris") >= 2
    assert "ratio" in table and "limit" in table


def test_cpu_sampler_classifies_a_child_again_once_it_has_execd():
    """A process first sampled between fork and exec has its parent's command line; once it has
    exec'd it is classified by its own (a fuzz child must not count as its Celery parent)."""
    import os
    import sys
    import time

    from benchmarks.common import CPUSampler, _cmdline
    s = CPUSampler({os.getpid(): "parent"}, lambda cmd, parent: "target" if "sampler-marker" in cmd else parent)
    go_r, go_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: wait for the word, then exec
        os.read(go_r, 1)
        os.execv(sys.executable, [sys.executable, "-c", "import sys; sys.stdin.read()", "sampler-marker"])
    try:
        s.sample()
        assert s.info[pid]["cat"] == "parent"  # not exec'd yet: its parent's command line
        os.write(go_w, b"x")
        while "sampler-marker" not in _cmdline(pid):
            time.sleep(0.01)
        s.sample()
        assert s.info[pid]["cat"] == "target"
    finally:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
