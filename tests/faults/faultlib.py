"""Helpers shared by the fault, bad-input and security tests and by the hand-run drills
(``scripts/drill_*``): the test-only harness site, submitting campaigns straight through the
farm's own enqueue function, waiting on Redis state, finding and killing the processes that run
a job. Everything here works on real processes: /proc, signals, redis-server, Celery workers."""

from __future__ import annotations

import configparser
import contextlib
import os
import signal
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SITE = os.path.join(HERE, "site")
REPO = os.path.dirname(os.path.dirname(HERE))

# What the fault farms' workers get: the test harnesses, short libFuzzer limits, short slices so a
# job is several task messages, quick triage.
WORKER_ENV = {
    "PYTHONPATH": os.pathsep.join(p for p in (SITE, os.environ.get("PYTHONPATH", "")) if p),
    "FUZZFARM_TIMEOUT_S": "2",        # libFuzzer -timeout (fires at ~2x, docs/TRAPS.md#g23)
    "FUZZFARM_RSS_LIMIT_MB": "300",   # libFuzzer -rss_limit_mb (ff-hog takes 600 MB)
    "FUZZFARM_MAX_SLICE_S": "4",
    "FUZZFARM_MINIMIZE_BUDGET_S": "10",
    "FUZZFARM_VERIFY_RUNS": "3",
    # a short visibility timeout (it must exceed every task's hard limit: slices of up to 8 s +
    # 16 s, collector tasks 30 s), so a message stranded in Redis's unacked set comes back in
    # ~35 s, not 14 min (e.g. one a worker had just fetched when Redis went down)
    "FUZZFARM_FUZZ_MARGIN_S": "16",
    "FUZZFARM_COLLECT_TIME_LIMIT_S": "30",
    "FUZZFARM_VISIBILITY_TIMEOUT": "32",
}


def worker_env(**over: str) -> dict:
    return {**WORKER_ENV, **over}


def site_harnesses() -> dict[str, str]:
    """name -> module of the test harnesses (from the site's entry_points.txt)."""
    cp = configparser.ConfigParser()
    (dist,) = [d for d in os.listdir(SITE) if d.endswith(".dist-info")]
    cp.read(os.path.join(SITE, dist, "entry_points.txt"))
    return dict(cp["fuzzfarm.harnesses"])


def harness_hash(name: str) -> str:
    """The source hash a submitter with the same install would send (registered or test harness)."""
    from fuzzfarm import harness as H

    mods = site_harnesses()
    if name not in mods:
        return H.get(name).source_hash()
    added = SITE not in sys.path
    if added:
        sys.path.insert(0, SITE)
    try:
        return H.Target(name, mods[name]).source_hash()
    finally:
        if added:
            sys.path.remove(SITE)


@contextlib.contextmanager
def publishing_to(url: str):
    """This process's Celery app publishes to ``url`` (and back afterwards); yields a Store."""
    from fuzzfarm.farm import app, configure
    from fuzzfarm.farm.store import Store

    before = os.environ.get("FUZZFARM_REDIS_URL")
    configure(url)
    _reset_pools(app)
    st = Store(url)
    try:
        yield st
    finally:
        st.r.close()
        _reset_pools(app)
        if before is None:
            os.environ.pop("FUZZFARM_REDIS_URL", None)
        else:
            configure(before)


def _reset_pools(app) -> None:
    # The app caches its broker connection pool and producer pool on first use: drop them so
    # the next publish connects to the URL configured now.
    app._pool = None
    with contextlib.suppress(AttributeError):
        app.amqp._producer_pool = None


def submit(st, harness: str, variant: str = "buggy", *, jobs: int = 1, duration: float = 4.0,
           strategy: str = "bytes", harness_hash_: str | None = None) -> str:
    """A campaign through the farm's own ``submit_campaign`` (what ``fuzzfarm submit`` calls);
    the harness hash is computed here unless given (to provoke version skew)."""
    import fuzzfarm
    from fuzzfarm.farm.tasks import submit_campaign

    spec = {"harness": harness, "variant": variant, "jobs": jobs, "duration_s": float(duration),
            "strategy": strategy, "harness_hash": harness_hash_ or harness_hash(harness),
            "version": fuzzfarm.__version__}
    return submit_campaign(st, spec)


def wait_until(pred, timeout: float, what: str, interval: float = 0.2):
    """Poll ``pred`` until it returns something truthy; AssertionError naming ``what`` on timeout."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = pred()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout:g} s waiting for {what} (last: {last!r})")


def job_states(st, cid: str) -> list[str]:
    return [j.get("state") for j in st.jobs(cid)]


def campaign_final(st, cid: str) -> bool:
    s = st.campaign_summary(cid)
    return bool(s) and s["status"] in ("done", "failed")


def campaign_settled(st, cid: str) -> bool:
    s = st.campaign_summary(cid)
    return bool(s) and s["settled"]


# ---- processes -----------------------------------------------------------------------------
def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return b""


def proc_state(pid: int) -> str:
    """One-letter state from /proc/PID/stat ('' when gone; 'Z' for a zombie, docs/TRAPS.md#g22)."""
    raw = _read(f"/proc/{pid}/stat")
    try:
        return raw.rsplit(b")", 1)[1].split()[0].decode()
    except IndexError:
        return ""


def ppid_of(pid: int) -> int:
    raw = _read(f"/proc/{pid}/stat")
    try:
        return int(raw.rsplit(b")", 1)[1].split()[1])
    except (IndexError, ValueError):
        return 0


def cmdline(pid: int) -> str:
    return _read(f"/proc/{pid}/cmdline").replace(b"\0", b" ").decode("utf-8", "replace")


def alive(pid: int) -> bool:
    return proc_state(pid) not in ("", "Z", "X")


def processes(*needles: str) -> list[int]:
    """Live (not zombie) processes whose command line contains every needle."""
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit() and int(d) != os.getpid():
            c = cmdline(int(d))
            if c and all(n in c for n in needles) and alive(int(d)):
                out.append(int(d))
    return out


def fuzzers(cid: str | None = None, job: int | None = None) -> list[int]:
    """Fuzzer processes of the test harnesses (of campaign ``cid``, job ``job``) that this
    process's workers started: their artifacts lie under this process's TMPDIR (under pytest,
    private to the pytest process: tests/conftest.py), so a fault farm of another pytest process
    running at the same time is not counted as this one's leftovers."""
    needles = [SITE + "/faultharnesses/", "-artifact_prefix=" + os.path.join(tempfile.gettempdir(), "")]
    if cid is not None:
        needles.append(f"fuzzfarm-{cid}-" + ("" if job is None else f"{job}-"))
    return processes(*needles)


def assert_no_fuzzers_left(timeout: float = 10.0) -> None:
    """No fuzzer of a test harness is alive (docs/TRAPS.md#g14); zombies waiting for PID 1 do not
    count (docs/TRAPS.md#g22)."""
    wait_until(lambda: not fuzzers(), timeout, "every test-harness fuzzer to be gone")


def pool_process_of_job(cid: str, job: int, timeout: float = 30.0) -> tuple[int, int]:
    """(pool child pid, fuzzer pid) of the Celery pool process running job ``job`` now."""
    def find():
        for f in fuzzers(cid, job):
            p = ppid_of(f)
            if p and "celery" in cmdline(p):
                return p, f
        return None
    return wait_until(find, timeout, f"a fuzzer of job {cid}/{job}", interval=0.05)


def kill(pid: int, sig: int = signal.SIGKILL) -> bool:
    try:
        os.kill(pid, sig)
        return True
    except ProcessLookupError:
        return False


def worker_pool_children(worker_pid: int) -> list[int]:
    return [int(d) for d in os.listdir("/proc") if d.isdigit() and ppid_of(int(d)) == worker_pid
            and alive(int(d))]


def queued(st, queue: str) -> int:
    """Messages waiting on ``queue`` (kombu keeps one Redis list per priority step)."""
    return sum(st.r.llen(k) for k in st.r.scan_iter(match=queue + "*") if st.r.type(k) == "list"
               and (k == queue or k.startswith(queue + "\x06\x16")))


def drained(st) -> bool:
    """No task message waiting or in flight on either queue."""
    return queued(st, "fuzz") == 0 and queued(st, "collect") == 0 and st.r.hlen("unacked") == 0


def hard_stop(worker) -> None:
    """SIGKILL an idle test worker's whole session (no 3 s soft-shutdown wait); reaps it."""
    if worker.proc is not None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(worker.proc.pid, signal.SIGKILL)
    worker.stop(timeout=1)


# What a finished campaign may leave in Redis after `fuzzfarm gc` (docs/RELIABILITY.md, "Redis
# growth"): buckets, their inputs, signatures and index, artifacts, groups; each harness's shared
# corpus; a crash input filed into no bucket (never lost). Everything else must be gone or expire.
KEPT_AFTER_GC = ("bucket:", "sig:", "buckets", "artifact:", "groups:", "corpus:")


def left_after_gc(st) -> list[str]:
    """``fuzzfarm:`` keys without a TTL that are none of KEPT_AFTER_GC (should be empty)."""
    from fuzzfarm.farm import store as S

    bad = []
    for k in st.r.scan_iter(match=S.P + "*", count=1000):
        rest = k[len(S.P):]
        # TTL -2: the key expired between SCAN and TTL (a sweep lock, fuzzfarm:lease:*-sweep)
        if rest.startswith(KEPT_AFTER_GC) or st.r.ttl(k) >= 0 or not st.r.exists(k):
            continue
        if rest.startswith("crash:") and not st.r.hget(k, "bucket"):
            continue
        bad.append(k)
    return sorted(bad)


def gc_cli(url: str) -> "subprocess.CompletedProcess":
    import subprocess
    env = {**os.environ, "FUZZFARM_REDIS_URL": url}
    return subprocess.run([sys.executable, "-m", "fuzzfarm.cli", "gc", "--older-than", "0"], capture_output=True,
                          text=True, timeout=60, env=env)
