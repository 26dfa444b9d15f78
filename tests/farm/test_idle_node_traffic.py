"""An idle worker node's Redis traffic (issue: at most 10 commands/s per worker, docs/OPERATIONS.md
"Redis traffic"): a real worker on a real redis-server, watched with MONITOR.

* the watchdog pings its node without a reply queue (fuzzfarm/farm/watchdog.py), and a healthy
  node hears every ping: with 1 s pings and 2 misses allowed, a watchdog that never hears
  its pings would stop this worker within the window;
* BRPOP is sent with a 3 s server-side timeout, not kombu's 1 s.
"""

from __future__ import annotations

import re
import subprocess
import time

from fuzzfarm.farm.config import BRPOP_TIMEOUT_S
from fuzzfarm.farm.embedded import RedisServer, Worker

WINDOW_S = 6.0


def test_an_idle_node_pings_itself_cheaply_and_polls_slowly(tmp_path):
    (tmp_path / "redis").mkdir()
    srv = RedisServer(str(tmp_path / "redis")).start()
    w = Worker(srv.url, ["fuzz"], logfile=str(tmp_path / "fuzz.log"),
               env={"FUZZFARM_WATCHDOG_INTERVAL_S": "1", "FUZZFARM_WATCHDOG_MISSES": "2"})
    try:
        w.start().wait_ready()
        time.sleep(1.5)  # the watchdog starts at worker_ready
        with open(tmp_path / "monitor.txt", "wb") as out:
            mon = subprocess.Popen(["redis-cli", "-p", str(srv.port), "monitor"], stdout=out)
            time.sleep(WINDOW_S)
            mon.terminate()
            mon.wait(10)
        lines = (tmp_path / "monitor.txt").read_text(errors="replace").splitlines()
        assert w.alive(), w.log_text()[-2000:]
        assert "fuzzfarm watchdog" not in w.log_text(), w.log_text()[-2000:]
        pings = [ln for ln in lines if '"PUBLISH" "/0.celery.pidbox"' in ln]
        assert len(pings) >= WINDOW_S - 2, pings  # the watchdog runs ...
        assert not [ln for ln in lines if "reply.celery.pidbox" in ln]  # ... without a reply queue
        brpops = [ln for ln in lines if re.search(r'"BRPOP" "fuzz"', ln)]
        assert 1 <= len(brpops) <= WINDOW_S / BRPOP_TIMEOUT_S + 1, brpops
        assert all(ln.endswith(f'"{BRPOP_TIMEOUT_S}"') for ln in brpops), brpops
    finally:
        w.stop()
        srv.cleanup()
