"""One view of the bugs below both front ends (issue 32, item 1): ``fuzzfarm crashes CAMPAIGN
--json``, the Bugs page of a real ``fuzzfarm web`` and ``fuzzfarm ci``'s JUnit and SARIF list the
same groups with the same members, each bucket with the same crash state (Go names with
``file.go:line``, the Python function beside) and the same fix verdict words; a group id read off
the page works in ``fuzzfarm group split``.

Default tier: buckets shaped like the seed harnesses' (race sites, Go names, a verdict still
proving) stored in a real redis-server, the reports written from the rows ci takes. Slow tier:
``fuzzfarm ci`` of both seed harnesses on a real farm (redis-server + Celery workers)."""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
import time

import pytest
from junitparser import JUnitXml
from webtools import WebServer, get

from fuzzfarm.farm import store as S
from fuzzfarm.farm.store import Store


HARNESSES = ("checker", "cluster-builder")
DURATION = os.environ.get("FUZZFARM_E2E_DURATION", "4")


def _expected_state(b: dict) -> str:
    """A bucket's crash state as every view must show it, from its stored record: innermost
    first, each frame in Go's name and ``file.go:line`` where the port declares it, the Python
    function beside in brackets when it differs."""
    py, go = b.get("crash_state") or [], b.get("go_crash_state") or []
    return " < ".join(g if g == p else f"{g} [{p}]" for g, p in zip(go or py, py)) or "(no project frames)"


def _page_groups(page: str) -> dict[str, dict[str, dict]]:
    """The Bugs page as {group id: {bucket id: {"state", "fixed"}}}."""
    out = {}
    for gid, body in re.findall(r'<section class="group" data-group="([^"]+)">(.*?)</section>', page, re.S):
        rows = {}
        for bid, row in re.findall(r'<tr data-bucket="([^"]+)">(.*?)</tr>', body, re.S):
            state = re.search(r'<td class="state-frames">(.*?)</td>', row, re.S).group(1)
            fixed = re.search(r'<td class="fix">(.*?)</td>', row, re.S)
            text = lambda s: " ".join(html.unescape(re.sub(r"<[^>]+>", " ", s)).split())  # noqa: E731
            rows[bid] = {"state": text(state), "fixed": text(fixed.group(1)) if fixed else None}
        out[gid] = rows
    return out


def _junit_groups(path: str) -> dict[str, dict[str, dict]]:
    """ci's JUnit as {group id: {bucket id: {"state", "fixed"}}} (a case per group)."""
    (suite,) = JUnitXml.fromfile(path)
    out = {}
    for case in suite:
        body = "".join(getattr(r, "text", None) or "" for r in (case.result or [])) + (case.system_out or "")
        gid = re.search(r"^group: (\S+)", body, re.M)
        members = {}
        for block in re.findall(r"^bucket: .*?(?=^bucket: |\Z)", body, re.M | re.S):
            fields = dict(line.split(": ", 1) for line in block.strip().splitlines() if ": " in line)
            members[fields["bucket"]] = {"state": fields.get("crash state"), "fixed": fields.get("fixed")}
        out[gid.group(1) if gid else f"(no group line) {case.name}"] = members
    return out


def _sarif_groups(path: str) -> dict[str, dict[str, str]]:
    """ci's SARIF as {group id: {bucket id: message text}} (every bucket is new here)."""
    with open(path) as f:
        doc = json.load(f)
    out: dict[str, dict[str, str]] = {}
    for res in doc["runs"][0]["results"]:
        props = res["properties"]
        out.setdefault(props.get("group") or "(no group)", {})[props["bucket"]] = res["message"]["text"]
    return out


def _partition(groups: dict[str, dict], keep: set[str]) -> dict[str, set[str]]:
    """{group id: member ids} restricted to ``keep`` (the page shows every campaign's buckets)."""
    return {g: set(m) & keep for g, m in groups.items() if set(m) & keep}



def _one_view(st, cid: str, rows: list[dict], page_text: str, junit_path: str, sarif_path: str) -> None:
    """``rows`` (``fuzzfarm crashes CID --json``), the Bugs page and ci's two files agree."""
    mine = {r["id"] for r in rows}
    assert "fixed fixed" not in page_text
    page, junit, sarif = _page_groups(page_text), _junit_groups(junit_path), _sarif_groups(sarif_path)
    cli_groups: dict[str, set[str]] = {}
    for r in rows:
        cli_groups.setdefault(r["group"], set()).add(r["id"])
    # the same groups with the same members, by the same ids, everywhere
    assert _partition(page, mine) == cli_groups, "the Bugs page's groups differ from `fuzzfarm crashes`"
    assert _partition(junit, mine) == cli_groups, "ci's JUnit groups differ from `fuzzfarm crashes`"
    assert _partition(sarif, mine) == cli_groups, "ci's SARIF groups differ from `fuzzfarm crashes`"
    on_page = {bid: m for g in page.values() for bid, m in g.items()}
    in_junit = {bid: m for g in junit.values() for bid, m in g.items()}
    in_sarif = {bid: t for g in sarif.values() for bid, t in g.items()}
    for r in rows:
        bid, want = r["id"], _expected_state(st.bucket(r["id"]))
        assert r["crash_state_text"] == on_page[bid]["state"] == in_junit[bid]["state"] == want, bid
        assert f"in {want} (" in in_sarif[bid], (bid, in_sarif[bid])
        assert r["fix_label"] == on_page[bid]["fixed"] == in_junit[bid]["fixed"], bid
        assert f"fixed: {r['fix_label']};" in in_sarif[bid], (bid, in_sarif[bid])
    # the ports declare their Go functions: every bucket names one with its Go file and line
    assert all(re.search(r"\.go:\d+\)", r["crash_state_text"]) for r in rows)


def _split_from_the_page(st, web, cli, mine: set[str]) -> None:
    """The largest group the page shows splits with `fuzzfarm group split GROUP`: each of its
    buckets a group of its own, in the CLI and on the page."""
    page = _partition(_page_groups(get(web.base + "/bugs")[1].decode()), mine)
    gid, members = max(page.items(), key=lambda kv: (len(kv[1]), kv[0]))
    assert len(members) > 1, page
    before = st.group_overrides()
    p = cli("group", "split", gid, "--name", "one name for every bucket")  # bad input: one line, nothing done
    assert p.returncode == 2 and "split without --name" in p.stderr and st.group_overrides() == before, p.stderr
    p = cli("group", "split", gid)
    try:
        assert p.returncode == 0, p.stderr
        rows = {r["id"]: r for r in cli.json("crashes")}
        assert len({rows[b]["group"] for b in members}) == len(members), "the group was not split"
        assert all(rows[b]["crash_state_text"] in rows[b]["group_name"] for b in members)  # named in Go terms
        after = _partition(_page_groups(get(web.base + "/bugs")[1].decode()), mine)
        assert all({b} in after.values() for b in members), after  # the page shows the split too
    finally:  # the session's farm serves other tests: the computed groups come back
        st.r.hdel(S.P + "groups:override", *members)


# ---- default tier: stored buckets, one campaign -----------------------------------------------
def _b(sig, harness, kind, py, go, **kw):
    return {"sig": sig, "harness": harness, "kind": kind, "crash_type": kw.pop("crash_type", kind),
            "crash_state": py, "go_crash_state": go, "state": "done", "count": 2, "reproducible": True,
            "verify_ok": 10, "verify_n": 10, "fix_variant": "fixed", **kw}


STOP = "objectChecker.Stop (wait_for_controlled_pods.go:713)"
OPTS = "cache.defaultOpts (cache.go:488)"
PROVING = {"fixed": True, "fix_verdict": "fixed", "fix_summary": "fixed (proof pending)", "fix_schedules": 80}
# Shaped like the demo's: the checker's nil cancel reached along two paths (one group by its
# failing operation), and cluster-builder map races whose top frames differ but whose racing
# writer is one (one group by the race; a view without the race fields makes three of them).
BUCKETS = [
    _b("s1", "checker", "goroutine panic", ["ObjectChecker.stop", "CheckerMap.delete_and_stop"],
       [STOP, "(*checkerMap).DeleteAndStop (checker_map.go:61)"], crash_type="goroutine panic (TypeError)", **PROVING),
    _b("s2", "checker", "goroutine panic", ["ObjectChecker.stop", "CheckerMap.add"],
       [STOP, "(*checkerMap).Add (checker_map.go:40)"], crash_type="goroutine panic (TypeError)", fixed=True,
       fix_verdict="fixed", fix_summary="fixed", fix_schedules=80),
    _b("t1", "cluster-builder", "concurrent map writes", ["default_opts", "new"], [OPTS, "cache.New (cache.go:300)"],
       object="DefaultNamespaces", racing_site="default_opts", go_racing_site="cache.defaultOpts", **PROVING),
    _b("t2", "cluster-builder", "concurrent map iteration and map write", ["new_multi_namespace_cache", "new"],
       ["cache.newMultiNamespaceCache (multi_namespace_cache.go:20)", "cache.New (cache.go:300)"],
       object="DefaultNamespaces", racing_site="default_opts", go_racing_site="cache.defaultOpts", **PROVING),
    _b("t4", "cluster-builder", "concurrent map iteration and map write", ["new", "KubernetesOptions._build_one"],
       ["cache.New (cache.go:300)", "KubernetesOptions.buildOne (kubernetes_cluster_clients.go:90)"],
       object="ByObject", racing_site="default_opts", go_racing_site="cache.defaultOpts", fixed=False,
       fix_verdict="NO", fix_summary="NO", fix_schedules=3),
]


class _InProcessCLI:
    """The real ``fuzzfarm`` Typer app in this process (a subprocess per call costs seconds)."""

    def __init__(self, url: str):
        from typer.testing import CliRunner
        self.url, self.runner = url, CliRunner()

    def __call__(self, *args: str):
        from fuzzfarm.cli import app
        r = self.runner.invoke(app, ["--redis", self.url, *args])
        r.returncode = r.exit_code
        return r

    def json(self, *args: str):
        r = self(*args, "--json")
        assert r.exit_code == 0, r.stderr
        return json.loads(r.stdout)


@pytest.fixture
def stored(store, tmp_path):
    cid = store.create_campaign({"harness": "checker", "variant": "buggy", "strategy": "mix", "jobs": 1,
                                 "duration_s": 1.0, "harness_hash": "h" * 64, "version": "0"})
    for b in BUCKETS:
        fields = {k: v for k, v in b.items() if k not in ("sig", "harness")}
        bid, *_ = store.create_or_join_bucket(harness=b["harness"], variant="buggy", signature=b["sig"],
                                              input_sha256=b["sig"], fields={**fields, "first_campaign": cid})
        store.r.zadd(S.P + f"campaign:{cid}:buckets", {bid: time.time()})  # as intake records a campaign's bucket
    web = WebServer(store.url, tmp_path / "web.log")
    yield cid, web
    web.stop()


def test_stored_buckets_read_the_same_in_crashes_the_page_junit_and_sarif(store, stored, tmp_path):
    from fuzzfarm import ci_report
    cid, web = stored
    rows = _InProcessCLI(store.url).json("crashes", cid)
    verdicts = ci_report.verdicts(rows, set())  # ci's reports are written from these rows
    ci_report.write_junit(str(tmp_path / "j.xml"), target="t/buggy", campaign=cid, verdicts_=verdicts, replay={},
                          summary={})
    (tmp_path / "s.sarif").write_text(json.dumps(ci_report.sarif(target="t/buggy", harness_path=None, campaign=cid,
                                                                 verdicts_=verdicts, replay={}, version="0")))
    status, body = get(web.base + "/bugs")
    assert status == 200
    _one_view(store, cid, rows, body.decode(), str(tmp_path / "j.xml"), str(tmp_path / "s.sarif"))
    assert len({r["group"] for r in rows}) == 2, rows  # the nil cancel, and the race on the shared options


def test_a_group_id_from_the_page_splits_in_the_cli(store, stored):
    _split_from_the_page(store, stored[1], _InProcessCLI(store.url), {b["id"] for b in
                                                                       _InProcessCLI(store.url).json("crashes")})


def test_the_bucket_page_shows_the_regression_test_that_download_writes(store, stored, tmp_path):
    cid, web = stored
    bid = store.campaign_bucket_ids(cid)[0]
    store.put_artifact(bid, {"repro.json": b"{}", "failure.txt": b"goroutine panic"})
    r = _InProcessCLI(store.url)("download", bid, "-o", str(tmp_path / "d"))
    assert r.returncode == 0, r.stderr
    (written,) = (tmp_path / "d").glob("test_*.py")
    status, body = get(f"{web.base}/bucket/{bid}")
    assert status == 200 and f"Regression test ({written.name})" in body.decode()
    assert written.read_text() in html.unescape(body.decode())


# ---- slow tier: `fuzzfarm ci` of both seed harnesses on a real farm ------------------------------
@pytest.fixture(scope="module")
def ci_runs(farm, tmp_path_factory):
    """``fuzzfarm ci`` of both seed harnesses on the session's farm, side by side."""
    tmp = tmp_path_factory.mktemp("ci")
    env = {**{k: v for k, v in os.environ.items() if k != "FUZZFARM_REDIS_URL"}, "FUZZFARM_REDIS_URL": farm.url}
    procs = {h: subprocess.Popen([sys.executable, "-m", "fuzzfarm.cli", "ci", h, "--duration", DURATION, "--jobs",
                                  "2", "--strategy", "mix", "--junit", str(tmp / f"{h}.xml"), "--sarif",
                                  str(tmp / f"{h}.sarif"), "-o", str(tmp / h)],
                                 cwd=tmp, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for h in HARNESSES}
    runs = {}
    for h, p in procs.items():
        out, err = p.communicate(timeout=800)
        assert p.returncode in (0, 1), f"fuzzfarm ci {h}: rc {p.returncode}\n{err[-3000:]}"
        rep = json.loads((tmp / h / "ci.json").read_text())
        assert rep["buckets"], f"fuzzfarm ci {h} found no bucket: {rep['summary']}"
        runs[h] = {"campaign": rep["campaign"], "junit": str(tmp / f"{h}.xml"), "sarif": str(tmp / f"{h}.sarif"),
                   "buckets": {b["id"] for b in rep["buckets"]}}
    return runs


@pytest.fixture(scope="module")
def farm_web(farm, tmp_path_factory):
    srv = WebServer(farm.url, tmp_path_factory.mktemp("web") / "web.log")
    yield srv
    srv.stop()


@pytest.mark.e2e
@pytest.mark.slow
@pytest.mark.timeout(900)
def test_ci_of_both_seed_harnesses_reads_the_same_in_crashes_and_the_page(farm, ci_runs, farm_web, tmp_path):
    from farm_fixtures import CLI
    cli, st = CLI(farm.url, str(tmp_path)), Store(farm.url)
    page_text = get(farm_web.base + "/bugs")[1].decode()
    for h, run in ci_runs.items():
        rows = cli.json("crashes", run["campaign"])
        assert {r["id"] for r in rows} == run["buckets"], h
        _one_view(st, run["campaign"], rows, page_text, run["junit"], run["sarif"])
    _split_from_the_page(st, farm_web, cli, ci_runs["cluster-builder"]["buckets"] | ci_runs["checker"]["buckets"])
