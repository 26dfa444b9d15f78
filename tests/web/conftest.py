"""Web view tests: a real ``fuzzfarm web`` subprocess and a real headless Chromium (Debian's
``chromium`` package, installed by scripts/setup, driven by Playwright by its path; nothing is
downloaded). Without the browser these tests are skipped, unless ``FUZZFARM_REQUIRE_REDIS=1``
(scripts/test, CI), where a missing browser is an error."""

from __future__ import annotations

import os
import shutil

import pytest

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
# As root and on a closed network: no sandbox, and none of Chromium's own background connections.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]


def _need_browser() -> None:
    if CHROMIUM is None:
        if os.environ.get("FUZZFARM_REQUIRE_REDIS") == "1":
            pytest.fail("chromium is not installed (FUZZFARM_REQUIRE_REDIS=1): run scripts/setup")
        pytest.skip("chromium is not installed; scripts/setup installs it")


@pytest.fixture(scope="session")
def browser():
    _need_browser()
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()
