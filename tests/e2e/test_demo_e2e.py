"""The README's path, short: ``scripts/setup`` links ``fuzzfarm`` into ``~/.local/bin`` (of a
throwaway HOME), ``fuzzfarm up`` (a second ``up`` says it runs), ``fuzzfarm demo`` on that local
farm, then every follow-up command the demo printed and every command of the README's "Use it"
section as written (durations cut to seconds), each in a fresh login shell with no venv activated
and no Redis URL anywhere, the downloaded regression test, the 80-column table, and the printed
``fuzzfarm down`` stopping every process ``up`` started (checked by PID)."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"  # a zombie is gone too (docs/TRAPS.md#g22)
    except OSError:
        return True


def _session_members(sids: set[int]) -> set[int]:
    """Every process whose session is one of ``sids`` (pool children, fuzzers)."""
    out = set()
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[4]) in sids:
                        out.add(int(d))
            except (OSError, IndexError, ValueError):
                pass
    return out


def readme_use_it() -> list[str]:
    """The commands of the README's "Use it" blocks, comments cut (not the ``export PATH`` line:
    a fresh login shell has ``~/.local/bin`` on PATH by itself)."""
    with open(os.path.join(REPO, "README.md")) as f:
        section = f.read().split("## Use it", 1)[1].split("\n## ", 1)[0]
    lines = [line.split("#", 1)[0].strip() for block in section.split("```bash")[1:]
             for line in block.split("```", 1)[0].strip().splitlines()]
    return [line for line in lines if line and not line.startswith("export PATH=")]


# What Debian's and Ubuntu's /etc/skel/.profile does for a new user's login shell.
PROFILE = '''if [ -d "$HOME/.local/bin" ] ; then
    PATH="$HOME/.local/bin:$PATH"
fi
'''


def login_shell(home, cwd, line: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """``line`` as the user types it in a new terminal: a login shell (``bash -l``: /etc/profile,
    then ~/.profile) with nothing of this process's environment but HOME (no venv, no
    $FUZZFARM_REDIS_URL, no PATH of ours)."""
    return subprocess.run(["env", "-i", f"HOME={home}", "bash", "-lc", line], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout)


def printed_commands(text: str) -> list[str]:
    """The fuzzfarm commands a message tells the user to run: `in backquotes` or (in parentheses)."""
    return [m.group(1) or m.group(2) for m in re.finditer(r"`(fuzzfarm [^`]+)`|\((fuzzfarm replay [^)]+)\)", text)]


def test_up_demo_then_the_readme_commands_then_down(tmp_path):
    from farm_fixtures import E2E_WORKER_ENV, _need_redis
    _need_redis()
    # A user's HOME: scripts/setup links `fuzzfarm` into its ~/.local/bin; the local farm's data
    # is under its ~/.local/share (the default a login shell gets); never the machine's own.
    home = tmp_path / "home"
    home.mkdir()
    (home / ".profile").write_text(PROFILE)
    (tmp_path / ".venv").symlink_to(os.path.join(REPO, ".venv"))  # the work directory stands for the checkout
    env = {k: v for k, v in os.environ.items() if k not in ("FUZZFARM_REDIS_URL", "XDG_BIN_HOME", "FUZZFARM_SETUP_LINK",
                                                            "VIRTUAL_ENV")}
    setup = subprocess.run([os.path.join(REPO, "scripts", "setup")], env={**env, "HOME": str(home)},
                           capture_output=True, text=True, timeout=600)
    assert setup.returncode == 0, setup.stderr[-3000:]
    link = home / ".local" / "bin" / "fuzzfarm"
    assert os.path.realpath(link) == os.path.realpath(os.path.join(REPO, ".venv", "bin", "fuzzfarm")), setup.stderr
    # this process's PATH lacks that ~/.local/bin: setup says so, with the line to run
    assert f'export PATH="{home}/.local/bin:$PATH"' in setup.stderr, setup.stderr
    # short triage: minimization and verification have tests of their own; here what counts is the path
    # The caches stay this machine's (~/.cache: Go's build cache, fuzzfarm's instrumented code):
    # both are content-addressed and change no result, and a fresh HOME would make `check-port`
    # build Go's standard library from nothing (minutes on 2 busy cores), which is not the path tested.
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    env.update(E2E_WORKER_ENV, FUZZFARM_MINIMIZE_BUDGET_S="5", FUZZFARM_VERIFY_RUNS="3", FUZZFARM_PROVE_BUDGET_S="4",
               XDG_DATA_HOME=str(home / ".local" / "share"), HOME=str(home), XDG_CACHE_HOME=cache,
               PATH=f"{home}/.local/bin:{env.get('PATH', '/usr/bin:/bin')}")  # after the line setup printed

    def run(*args, timeout=300, extra=None):
        argv = [str(link), *args] if args[0] != "pytest" else [
            sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args[1:]]
        return subprocess.run(argv, cwd=tmp_path, env={**env, **(extra or {})}, capture_output=True, text=True,
                              timeout=timeout)

    import time
    t0 = time.monotonic()

    def lap(what):  # where the time goes (printed with -s)
        print(f"{time.monotonic() - t0:6.1f} s  {what}")

    p = run("up", "--json")
    assert p.returncode == 0, p.stderr
    lap("up")
    up = json.loads(p.stdout)
    assert up["started"] and "***" in up["url"]
    pids = [up["supervisor_pid"], up["redis_pid"], *(w["pid"] for w in up["workers"])]
    assert sorted(q for w in up["workers"] for q in w["queues"]) == ["collect", "fuzz"]
    try:
        again = run("up")
        assert again.returncode == 0 and "already running" in again.stdout, again.stdout + again.stderr

        p = run("demo", "--duration", "5", "--jobs", "1", "-o", "out", "--json", timeout=540)
        assert p.returncode == 0, p.stderr[-3000:]
        res = json.loads(p.stdout)
        lap("demo")
        assert res["started"]["local"] and not res["started"]["started_now"]  # it ran on the farm of `up`
        assert res["started"]["redis_pid"] == up["redis_pid"]
        assert {s["harness"] for s in res["campaigns"].values()} == {"checker", "cluster-builder"}
        assert all(s["settled"] and s["buckets"] >= 1 for s in res["campaigns"].values())
        # one group per seed bug, hazards in groups of their own, never a bug of both harnesses in one
        for cid, rows in res["buckets"].items():
            bugs = {r["group"] for r in rows if not r.get("fix_keeps")}
            assert len(bugs) == 1, [(r["group_name"], r["crash_type"], r["crash_state"]) for r in rows]
            assert all(r["group_name"].split(":")[1].strip().startswith("hazard") for r in rows if r.get("fix_keeps"))
        # no bucket's verdict contradicts its proof (issue 29: "fixed" beside "NOT fixed")
        for rows in res["buckets"].values():
            for r in rows:
                if (r.get("fix_proof_line") or "").startswith("NOT fixed"):
                    assert r.get("fixed") is not True and r.get("fix_verdict") != "fixed", r
        groups = [{r["group"] for r in rows} for rows in res["buckets"].values()]
        assert not set.intersection(*groups), groups
        assert "groups of buckets" in p.stderr
        assert "the local farm stays up" in p.stderr
        checker_cid = next(c for c, s in res["campaigns"].items() if s["harness"] == "checker")
        # every command the demo printed, verbatim, in a new terminal: replay exits 1 (fails as
        # recorded; a flaky bucket's one replay may pass), crashes and status 0; `fuzzfarm down` last
        printed = printed_commands(p.stderr)
        assert "fuzzfarm down" in printed and "fuzzfarm crashes" in printed and "fuzzfarm status" in printed, p.stderr
        flaky = {b["id"] for rows in res["buckets"].values() for b in rows if b.get("flaky")}
        replays = [c for c in printed if c.startswith("fuzzfarm replay ")]
        assert len(replays) == len(res["downloads"]) >= 2, p.stderr
        for line in (c for c in printed if c != "fuzzfarm down"):
            q = login_shell(home, tmp_path, line)
            want = (0, 1) if any(b in line for b in flaky) else (1,) if "replay" in line else (0,)
            assert q.returncode in want, f"{line}: rc {q.returncode}\n{q.stdout[-2000:]}\n{q.stderr[-2000:]}"
            assert "Traceback" not in q.stderr, q.stderr
        lap("the demo's printed commands in a login shell")
        # the demo printed the local farm's web view, which stays up with the farm (until `down`)
        import urllib.request
        m = re.search(r"web view (http://127\.0\.0\.1:\d+/)", p.stderr)
        assert m and m.group(1) == up["web"], p.stderr[-2000:]
        with urllib.request.urlopen(m.group(1) + "campaigns", timeout=10) as page:
            assert page.status == 200 and checker_cid.encode() in page.read()
        bucket = next(b["id"] for b in res["buckets"][checker_cid] if b.get("fixed") is True and b["state"] == "done")

        # the README's "Use it" commands as written, in a shell with no Redis URL
        codes = {}
        for line in readme_use_it():
            argv = shlex.split(line)
            argv = [a.replace("[CAMPAIGN]", checker_cid).replace("CAMPAIGN", checker_cid).replace("BUCKET", bucket)
                    for a in argv]
            if "--duration" in argv:  # the README's campaign, cut to seconds
                argv[argv.index("--duration") + 1] = "3"
                argv[argv.index("--jobs") + 1] = "1"
            if argv[1:2] == ["cancel"]:
                argv[2] = codes["submit"][1]  # cancel the README's own campaign (already finished: say so)
            q = login_shell(home, tmp_path, f"COLUMNS=250 {shlex.join(argv)}")
            what = argv[1] if argv[0] == "fuzzfarm" else "pytest"
            codes[what] = (q.returncode, q.stdout.splitlines()[0] if q.stdout else "")
            want = {"submit": (0, 1), "replay": (1,) if "--variant" not in argv else (0,), "cancel": (2,)}.get(
                what, (0,))
            assert q.returncode in want, f"{line}: rc {q.returncode}\n{q.stdout[-2000:]}\n{q.stderr[-2000:]}"
            if argv[1:2] == ["cancel"]:
                assert "already done" in q.stderr  # a finished campaign: one line saying so
            if argv[1:2] == ["submit"]:  # --wait: live progress on stderr, then the campaign's buckets
                assert "checker/buggy" in q.stderr and "execs" in q.stderr and "buckets" in q.stderr, q.stderr
                if q.returncode == 1:  # exit 1: it found a bucket, shown with Go's names
                    assert "buckets of c" in q.stdout and "objectChecker.Stop" in q.stdout, q.stdout
            assert "Traceback" not in q.stderr, q.stderr
        assert re.fullmatch(r"c\d{8}[0-9a-f]{6}", codes["submit"][1])
        lap("README Use it commands")

        # the regression test in the download folder passed above (the README's `pytest repro/`);
        # it fails once it replays buggy as "fixed"
        assert codes["pytest"][0] == 0
        repro = tmp_path / "repro"
        (test_file,) = repro.glob("test_*.py")
        src = test_file.read_text()
        test_file.write_text(src.replace("FIXED = 'fixed'", "FIXED = 'buggy'"))
        assert run("pytest", str(repro)).returncode == 1
        test_file.write_text(src)
        # runone: exit 1 on the failing input, 0 where it does not fail
        for variant, rc in (("buggy", 1), ("fixed", 0)):
            r = subprocess.run([sys.executable, "-m", "fuzzfarm.runone", "checker", variant, str(repro / "input.min")],
                               capture_output=True, text=True, env=env, timeout=120)
            assert r.returncode == rc and json.loads(r.stdout)["failed"] is bool(rc), r.stderr
        # at 80 columns, even piped: no line over 80 characters
        narrow = run("crashes", extra={"COLUMNS": "80"})
        assert narrow.returncode == 0 and bucket in narrow.stdout
        assert max(len(line) for line in narrow.stdout.splitlines()) <= 80, narrow.stdout
        print("\nCOLUMNS=80 fuzzfarm crashes:\n" + narrow.stdout)
        # no cell cut inside a word: every id, count, Go name of the rows appears whole
        rows = [r for rs in res["buckets"].values() for r in rs]
        words = [w for r in rows for v in (r["id"], r["group"], r["count"], *(r.get("go_crash_state") or
                                                                               r.get("crash_state") or []))
                 for w in str(v).split()]
        cut = [w for w in words if w not in narrow.stdout]
        assert not cut, f"cut at 80 columns: {cut}\n{narrow.stdout}"
        st80 = run("status", extra={"COLUMNS": "80"})
        assert st80.returncode == 0 and max(len(line) for line in st80.stdout.splitlines()) <= 80, st80.stdout
        assert all(cid in st80.stdout for cid in res["campaigns"]), st80.stdout

        lap("regression test, runone, 80 columns")
        # fuzzfarm ci on this farm: the demo's checker campaign as the baseline, then this run's ci.json
        first = run("ci", "checker", "--duration", "3", "--jobs", "1", "--baseline", checker_cid, "--junit", "j.xml",
                    "--sarif", "f.sarif", "-o", "ci1", "--json")
        rep = json.loads(first.stdout)
        known = set(rep["baseline"])
        assert known == {b["id"] for b in res["buckets"][checker_cid]}
        def new_groups(r, known_ids):  # ci's verdict: a root-cause group none of whose buckets was known
            groups = {}
            for b in r["buckets"]:
                groups.setdefault(b.get("group") or b["id"], []).append(b)
            return [g for g in groups.values()
                    if not any(b["id"] in known_ids for b in g) and any(b.get("reproducible") for b in g)]
        new = new_groups(rep, known)
        assert first.returncode == (1 if new else 0) and rep["new_reproducible"] == len(new), first.stderr[-2000:]
        for b in (b for g in new for b in g if b.get("reproducible")):
            assert (tmp_path / "ci1" / b["id"] / "input.min").exists() and b["replay"] == f"fuzzfarm replay ci1/{b['id']}"
        # the ci.json it wrote is the next run's baseline: every bucket of this run and its own baseline
        # (a second ci run reading it is the slow acceptance test, tests/e2e/test_ci_acceptance_slow.py;
        # its verdict on known buckets is the first run's, and tests/test_ci_report.py's)
        from fuzzfarm import ci_report
        assert ci_report.read_baseline(str(tmp_path / "ci1" / "ci.json")) == known | {b["id"] for b in rep["buckets"]}
        assert ci_report.read_baseline(str(tmp_path / "j.xml")) >= {b["id"] for b in rep["buckets"]}
        assert ci_report.read_baseline(str(tmp_path / "f.sarif")) == {b["id"] for b in rep["buckets"]}
        lap("ci run")
        # the supervisor restarts a worker that dies
        import signal
        state_file = Path(up["dir"]) / "farm.json"
        assert Path(up["dir"]).is_relative_to(home / ".local" / "share" / "fuzzfarm" / "farms")
        collect = next(w for w in up["workers"] if w["queues"] == ["collect"])
        os.killpg(collect["pid"], signal.SIGKILL)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            svc = next(s for s in json.loads(state_file.read_text())["services"] if s["queues"] == ["collect"])
            if svc["pid"] != collect["pid"] and not _gone(svc["pid"]):
                break
            time.sleep(0.5)
        assert svc["pid"] != collect["pid"] and svc["restarts"] == 1, svc
        pids.append(svc["pid"])
        lap("worker restart")
    finally:
        sids = set(pids)
        members = _session_members(sids)
        down = login_shell(home, tmp_path, "fuzzfarm down")  # as the demo printed it
    assert down.returncode == 0 and "local farm stopped" in down.stdout, down.stdout + down.stderr
    for pid in pids + sorted(members):
        assert _gone(pid), f"pid {pid} outlived `fuzzfarm down`"
    assert "no local farm is running" in run("down").stdout
    lap("down")
