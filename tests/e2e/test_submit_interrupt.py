"""Ctrl-C in ``fuzzfarm submit --wait``: SIGINT sent to the real command while it watches a
campaign on the test farm. It exits 130 (interrupted, as a shell reports Ctrl-C), not 0 (a clean
finish with no bucket), says the campaign goes on and how to watch or cancel it."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]


def test_sigint_in_submit_wait_exits_130_and_the_campaign_goes_on(farm, tmp_path):
    from fuzzfarm.farm.store import Store
    env = {**os.environ, "FUZZFARM_REDIS_URL": farm.url}
    p = subprocess.Popen([sys.executable, "-m", "fuzzfarm.cli", "submit", "checker", "--jobs", "1", "--duration",
                          "120", "--wait"], env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    st = Store(farm.url)
    cid = None
    try:
        first = p.stderr.readline()  # "campaign CID: checker/buggy, 1 job(s) x 120 s", then the progress
        cid = re.match(r"campaign (c\w+):", first).group(1)
        deadline = time.monotonic() + 120
        while st.jobs(cid)[0].get("state") != "running" and time.monotonic() < deadline:
            time.sleep(0.2)
        assert st.jobs(cid)[0].get("state") == "running"  # it is watching a live campaign
        p.send_signal(signal.SIGINT)
        p.wait(timeout=60)
        # read through the same buffered file readline() used: communicate() reads the pipe's fd
        # directly and loses what readline() had already buffered (the lines after the first)
        out, err = p.stdout.read(), p.stderr.read()
        assert p.returncode == 130, (p.returncode, out, err)
        assert f"stopped watching; campaign {cid} goes on" in err and f"fuzzfarm cancel {cid}" in err, err
        assert st.campaign_summary(cid)["status"] == "running"  # Ctrl-C stopped the watching only
    finally:
        if p.poll() is None:
            p.kill()
        if cid:
            st.request_cancel(cid)
        st.r.close()
