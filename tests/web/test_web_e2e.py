"""End to end in a real headless Chromium: a real farm (redis-server + Celery worker processes)
runs a short checker campaign; ``fuzzfarm web`` runs as a subprocess on the farm's Redis; the
browser checks the campaigns page, the bugs page, a bucket page's swimlanes and an artifact
download. Screenshots are saved under the test's tmp dir (the path is printed)."""

from __future__ import annotations

import hashlib
import json
import os
import time

import pytest
from webtools import WebServer, get, post

from fuzzfarm.farm import store as S
from fuzzfarm.farm.store import Store

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

TOKEN = "web-e2e-token-5b1"
SETTLE_TIMEOUT_S = 400


def _finished_checker_campaign(st: Store) -> str | None:
    """A buggy checker campaign this session's farm already ran to the end, with a triaged
    bucket (tests/e2e runs them on the same farm): reused, it saves CI a minute."""
    for cid in reversed(st.campaign_ids()):
        c = st.campaign_summary(cid)
        if c and (c["harness"], c["variant"], c["status"]) == ("checker", "buggy", "done"):
            for bid in st.campaign_bucket_ids(cid):
                b, files = st.bucket(bid), st.artifact(bid)
                if b and b.get("state") == "done" and files and "trace.json" in files:
                    return cid
    return None


@pytest.fixture(scope="module")
def checker_campaign(farm, tmp_path_factory):
    """A checker campaign on the buggy variant: one this farm already ran, else a 1-job one
    submitted here and waited for until its fuzzing is over and one bucket is triaged to the
    end (others may still be in triage: the pages show them as such)."""
    from farm_fixtures import CLI
    cli = CLI(farm.url, str(tmp_path_factory.mktemp("cli")))
    st = Store(farm.url)
    cid = _finished_checker_campaign(st) or cli.json("submit", "checker", "--jobs", "1", "--duration", "4")["campaign"]
    deadline = time.monotonic() + SETTLE_TIMEOUT_S
    while True:
        s = st.campaign_summary(cid)
        done = [b for b in (st.bucket(x) for x in st.campaign_bucket_ids(cid)) if b and b.get("state") == "done"]
        if done and s["status"] == "done":
            break
        assert s["status"] != "failed", f"the checker campaign failed: {s}"
        assert not s["settled"], f"the checker campaign found no bug: {s}"
        assert time.monotonic() < deadline, f"no bucket triaged after {SETTLE_TIMEOUT_S} s: {s}"
        time.sleep(0.5)
    return {"id": cid, "cli": cli, "store": st, "buckets": done}


@pytest.fixture(scope="module")
def web(farm, tmp_path_factory):
    srv = WebServer(farm.url, tmp_path_factory.mktemp("web") / "web.log", token=TOKEN)
    yield srv
    srv.stop()


@pytest.fixture
def page(browser, tmp_path):
    ctx = browser.new_context(viewport={"width": 1400, "height": 900}, accept_downloads=True)
    pg = ctx.new_page()
    yield pg
    print(f"\nscreenshots: {tmp_path}")
    ctx.close()


def test_campaigns_bugs_and_bucket_pages_in_a_browser(checker_campaign, web, page, tmp_path):
    cid, cli, st = checker_campaign["id"], checker_campaign["cli"], checker_campaign["store"]
    # campaigns page: the campaign is listed with its harness and final state
    page.goto(web.base + "/campaigns")
    row = page.locator(f'#campaigns tr[data-campaign="{cid}"]')
    assert row.count() == 1
    assert "checker" in row.inner_text() and row.locator(".state").inner_text() in ("done", "triaging")
    page.screenshot(path=str(tmp_path / "campaigns.png"), full_page=True)

    # the campaign page plots execs over time from the stored series
    page.goto(web.base + f"/campaign/{cid}")
    assert page.locator("svg.chart.execs polyline.series").count() == 1
    assert page.locator("svg.chart.buckets polyline.series").count() == 1
    # live: the charts and jobs are re-fetched from the server while the page is open
    page.wait_for_selector("div.live[data-refreshed]", timeout=15000, state="attached")
    assert page.locator("div.live svg.chart.execs").count() == 1
    page.screenshot(path=str(tmp_path / "campaign.png"), full_page=True)

    # bugs page, filtered to the harness: every bucket of the campaign, each inside its group
    page.goto(web.base + "/bugs?harness=checker")
    for bid in st.campaign_bucket_ids(cid):
        cell = page.locator(f'section.group tr[data-bucket="{bid}"]')
        assert cell.count() == 1, f"bucket {bid} not on the bugs page"
        b = st.bucket(bid)
        sections = page.locator(f'section.group:has(tr[data-bucket="{bid}"])')
        assert sections.count() == 1  # in exactly one group
        if not hasattr(st, "group_overrides"):  # no root-cause grouping in this build: its own group
            assert sections.get_attribute("data-group") == (b.get("group") or bid)
        assert (b.get("crash_type") or b["kind"]) in cell.inner_text()
    page.screenshot(path=str(tmp_path / "bugs.png"), full_page=True)
    # the kind filter keeps out what does not match
    page.goto(web.base + "/bugs?kind=no-such-kind")
    assert page.locator("section.group").count() == 0

    # a bucket page: one lane per goroutine of the minimized reproducer, the failing event marked.
    # What to expect comes from the reproducer itself: downloaded and replayed by the CLI.
    b = checker_campaign["buckets"][0]
    out_dir = os.path.join(cli.cwd, "repro")
    cli.json("download", b["id"], "-o", out_dir)
    p = cli("replay", out_dir, "--json")
    assert p.returncode == 1, p.stderr  # it fails as recorded
    tj = json.loads(p.stdout)["outcome"]["trace_json"]
    want_lanes = {g for g, *_ in tj["legend"]} | ({0} if any(e[3] == 0 for e in tj["events"]) else set())
    page.goto(web.base + f"/bucket/{b['id']}")
    lanes = page.locator("svg.swimlanes g.lane")
    assert {int(lanes.nth(i).get_attribute("data-gid")) for i in range(lanes.count())} == want_lanes
    assert lanes.count() == len(want_lanes)
    for g, name, _ in tj["legend"]:
        lane = page.locator(f'svg.swimlanes g.lane[data-gid="{g}"]')
        assert lane.locator("title").text_content().startswith(f"G{g} {name}")
        assert lane.locator(".lanehead").text_content().startswith(f"G{g} ")
    assert page.locator("svg.swimlanes g.ev").count() == len(tj["events"])
    failing = page.locator("svg.swimlanes g.ev.failing")
    assert failing.count() == 1
    assert failing.get_attribute("data-kind") == "failure"
    assert int(failing.get_attribute("data-gid")) == tj["failing_goroutine"]
    assert failing.is_visible()
    page.screenshot(path=str(tmp_path / f"bucket-{b['id']}.png"), full_page=True)

    # every download link gives the bytes whose sha256 the downloaded manifest lists
    manifest = json.load(open(os.path.join(out_dir, "MANIFEST.json")))["files"]
    links = page.locator("a.download")
    names = [links.nth(i).get_attribute("data-name") for i in range(links.count())]
    assert set(manifest) <= set(names)
    for name in ("input.min", "trace.json"):
        with page.expect_download() as dl:
            page.locator(f'a.download[data-name="{name}"]').click()
        data = open(dl.value.path(), "rb").read()
        assert hashlib.sha256(data).hexdigest() == manifest[name], name
    for name in manifest:  # the rest over plain HTTP: the same bytes as `fuzzfarm download`
        status, data = get(f"{web.base}/bucket/{b['id']}/file/{name}")
        assert status == 200 and hashlib.sha256(data).hexdigest() == manifest[name], name
        assert data == open(os.path.join(out_dir, name), "rb").read()


def test_state_changing_routes_need_the_token(checker_campaign, web, page):
    cid = checker_campaign["id"]
    bid = checker_campaign["buckets"][0]["id"]
    routes = [(f"/campaign/{cid}/cancel", b""), (f"/group/{bid}/split", f"bucket={bid}".encode()),
              ("/groups/merge", f"group={bid}&group=x".encode())]
    for path, body in routes:
        assert post(web.base + path, body)[0] == 403, path  # no token
        assert post(web.base + path, body, {"X-Fuzzfarm-Token": TOKEN + "x"})[0] == 403, path  # wrong token
        # a cross-site form post carrying the right cookie is still refused (Origin check)
        assert post(web.base + path, body, {"X-Fuzzfarm-Token": TOKEN, "Origin": "http://evil.example"})[0] == 403
    before = checker_campaign["store"].campaign(cid)
    status, _ = post(web.base + f"/campaign/{cid}/cancel", b"", {"X-Fuzzfarm-Token": TOKEN})
    assert status in (200, 409)  # with the token the route runs (cancel itself is `fuzzfarm cancel`'s code)
    if status == 409:  # the campaign is settled already: nothing changed
        assert checker_campaign["store"].campaign(cid) == before
    # split and merge with the token: the same code as `fuzzfarm group split|merge`
    st = checker_campaign["store"]
    try:
        status, body = post(web.base + f"/group/any/split", f"bucket={bid}".encode(), {"X-Fuzzfarm-Token": TOKEN})
        assert status == 200 and "-&gt; group m" in body, body[-500:]
        gid = st.group_overrides()[bid]
        status, body = post(web.base + "/groups/merge", f"group={gid}&group=nope".encode(), {"X-Fuzzfarm-Token": TOKEN})
        assert status == 400 and "no group or bucket" in body and st.group_overrides()[bid] == gid
    finally:  # the other tests see the campaign's groups as triage made them
        st.r.delete(S.P + "groups:override", S.P + "groups:name")
    # in the browser: the cancel button is disabled until one logs in with the token
    page.goto(web.base + f"/campaign/{cid}")
    assert page.locator("form.action button").is_disabled()
    page.goto(web.base + "/login")
    page.fill("input[name=token]", "wrong-token-123")
    page.click("form.login button")
    assert "wrong token" in page.content()
    page.fill("input[name=token]", TOKEN)
    page.click("form.login button")
    page.goto(web.base + f"/campaign/{cid}")
    assert page.locator("form.action button").is_enabled()
