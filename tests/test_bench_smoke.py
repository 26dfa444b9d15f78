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


def _state(pid: int) -> str:
    with open(f"/proc/{pid}/stat", "rb") as f:
        raw = f.read().decode("ascii", "replace")
    return raw[raw.rfind(")") + 2]


def _exec_marked_child(hold_r: int, go_r: int) -> None:
    """In a forked child: wait for the word on ``go_r``, then exec a Python whose command line
    carries the marker and that reads ``hold_r`` as its stdin (so it lives until the parent closes
    the pipe's other end, and then exits)."""
    os.read(go_r, 1)
    os.dup2(hold_r, 0)
    os.execv(sys.executable, [sys.executable, "-c", "import sys; sys.stdin.read()", "sampler-marker"])


def test_cpu_sampler_classifies_a_child_again_once_it_has_execd():
    """A process first sampled between fork and exec has its parent's command line; once it has
    exec'd it is classified by its own (a fuzz child must not count as its Celery parent).
    The child's stdin is a pipe this test holds open: under pytest-xdist stdin is /dev/null, and a
    child reading it exited at once, so on a loaded machine the second sample met a zombie (whose
    command line reads empty) and the test failed about once in four CI runs."""
    import time

    from benchmarks.common import CPUSampler, _cmdline
    s = CPUSampler({os.getpid(): "parent"}, lambda cmd, parent: "target" if "sampler-marker" in cmd else parent)
    go_r, go_w = os.pipe()
    hold_r, hold_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        _exec_marked_child(hold_r, go_r)
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
        for fd in (go_r, go_w, hold_r, hold_w):
            os.close(fd)


def test_cpu_sampler_keeps_an_exited_childs_category():
    """A child first seen after its exec, so classified by its own command line, keeps that category once it has exited and is a
    zombie not yet waited for (its command line then reads empty): its CPU is still the target's,
    not its parent's."""
    import time

    from benchmarks.common import CPUSampler, _cmdline
    s = CPUSampler({os.getpid(): "parent"}, lambda cmd, parent: "target" if "sampler-marker" in cmd else parent)
    go_r, go_w = os.pipe()
    hold_r, hold_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        _exec_marked_child(hold_r, go_r)
    try:
        os.write(go_w, b"x")
        while "sampler-marker" not in _cmdline(pid):
            time.sleep(0.01)
        s.sample()  # first seen after its exec: classified by its own command line
        assert s.info[pid]["cat"] == "target"
        os.close(hold_w)  # the child's stdin ends: it exits, and stays a zombie until waited for
        hold_w = -1
        while _state(pid) != "Z":
            time.sleep(0.01)
        s.sample()
        assert s.info[pid]["cat"] == "target"
    finally:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        for fd in (go_r, go_w, hold_r, hold_w):
            if fd >= 0:
                os.close(fd)
