"""``fuzzfarm status CAMPAIGN``: the jobs' crashes add up to the campaign's (each distinct
failing input counted once, for the job that reported it first), and exec/s is execs over
fuzzing time (all of a job's slices), not the last slice's rate; the table says so. Real Redis,
the store's own writes (as workers make them), the real CLI in a subprocess."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys


def _status(url: str, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "FUZZFARM_REDIS_URL": url, "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "fuzzfarm.cli", "status", *args], env=env, capture_output=True,
                          text=True, timeout=120)


def _campaign(store) -> str:
    cid = store.create_campaign({"harness": "checker", "variant": "buggy", "jobs": 2, "duration_s": 60.0,
                                 "strategy": "bytes", "harness_hash": "h", "version": "v"})
    # job 0: three slices; its last slice ran 15 s at 76 exec/s (libFuzzer's rate in that slice)
    store.update_job(cid, 0, state="done", execs_base=20000, elapsed_base=45.0)
    store.job_stats(cid, 0, {"execs": 5135, "elapsed_s": 15.0, "exec_per_s": 76, "crashes": 12, "cov": 10})
    # job 1: one slice of 60 s
    store.update_job(cid, 1, state="done")
    store.job_stats(cid, 1, {"execs": 6000, "elapsed_s": 60.0, "exec_per_s": 100, "crashes": 4, "cov": 9})
    for job, data in ((0, b"a"), (0, b"b"), (0, b"c"), (1, b"d"), (1, b"a"), (0, b"a")):  # "a": job 0's first
        store.report_crash(cid, job, "checker", "buggy", data)
    return cid


def test_jobs_crashes_sum_to_the_campaigns_and_exec_rate_is_over_fuzzing_time(store, redis_server):
    cid = _campaign(store)
    got = json.loads(_status(redis_server.url, cid, "--json").stdout)
    assert got["crashes"] == 4
    assert {j["job"]: j["crash_inputs"] for j in got["jobs"]} == {0: 3, 1: 1}
    assert {j["job"]: j["fuzz_exec_per_s"] for j in got["jobs"]} == {0: 418.9, 1: 100.0}
    assert got["fuzz_exec_per_s"] == 518.9
    p = _status(redis_server.url, cid)
    assert p.returncode == 0, p.stderr
    head = p.stdout.splitlines()[0]
    assert "crashes 4 " in head and "exec/s 519 " in head, head
    cells = [[c.strip() for c in line.strip().strip("│┃").split("│" if line.startswith("│") else "┃")]
             for line in p.stdout.splitlines() if line.startswith(("│", "┃"))]
    cols, rows = cells[0], {int(r[0]): r for r in cells[1:]}
    crashes, eps = cols.index("crashes"), cols.index("exec/s")
    assert sum(int(r[crashes]) for r in rows.values()) == 4 and int(rows[0][crashes]) == 3, p.stdout
    assert rows[0][eps] == "419" and rows[1][eps] == "100", p.stdout
    assert "exec/s: execs over fuzzing time" in p.stdout
    table = _status(redis_server.url).stdout  # all campaigns: the same rate
    assert re.search(rf"{cid}.*\b519\b", table) and "exec/s: execs over fuzzing time" in table, table


def test_the_web_view_shows_the_same_counts_and_rates(store, redis_server):
    import urllib.request

    from fuzzfarm.web import server
    cid = _campaign(store)
    bg = server.Background(redis_server.url, "127.0.0.1", _free_port()).start()
    try:
        with urllib.request.urlopen(f"{bg.url}campaign/{cid}/fragment", timeout=10) as page:
            html = page.read().decode()
    finally:
        bg.stop()
    jobs = html.split("<h2>Jobs</h2>", 1)[1].split("</table>", 1)[0]
    rows = [re.findall(r'<td class="n">([^<]*)</td>', tr) for tr in jobs.split("<tr>")[2:]]
    # execs, execs/s, cov, crashes per job
    assert [r[1] for r in rows] == ["418.9", "100"] and [r[3] for r in rows] == ["3", "1"], rows
    assert "crashes 4 " in html and "518.9 execs/s of fuzzing time" in html


def _free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
