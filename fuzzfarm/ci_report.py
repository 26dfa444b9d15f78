"""What ``fuzzfarm ci`` decides and writes: new vs known buckets, JUnit XML, SARIF, Markdown.

Pure (no Redis, no Celery): bucket rows (``fuzzfarm crashes --json`` records) in, verdicts and
report files out. A bucket id is a hash of harness, variant and signature, so the same bug has
the same id on every farm: a baseline is a set of bucket ids, read from any earlier report
(``ci.json``, JUnit XML or SARIF written here) or from a campaign's buckets.

A bug is a root-cause group (:func:`fuzzfarm.views.bucket_rows` sets each row's ``group``): one
verdict per group, its buckets listed under it, in the words every view uses.
"""

from __future__ import annotations

import json
import os
import re

from fuzzfarm import views
from fuzzfarm.collector.artifact import reproducibility

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
FINGERPRINT = "fuzzfarmBucket/v1"


class BaselineError(ValueError):
    """The baseline file cannot be read; ``str`` says what to do."""


def groups(rows: list[dict]) -> list[list[dict]]:
    """The bug groups the CI verdict counts: buckets of one root-cause group (``group``)
    together, in first-seen order; a bucket without a group alone."""
    out: dict[str, list[dict]] = {}
    for r in rows:
        out.setdefault(r.get("group") or f"bucket:{r['id']}", []).append(r)
    return list(out.values())


def needs_starvation(g: list[dict]) -> float | None:
    """The least starvation any bucket of group ``g`` needs (its minimized reproducer's,
    ``starvation_s``; docs/timing.md), None when no bucket measured it."""
    known = [float(r["starvation_s"]) for r in g if r.get("starvation_s") not in (None, "")]
    return min(known) if known else None


def verdicts(rows: list[dict], baseline: set[str], max_starvation: float | None = None) -> list[dict]:
    """One entry per group: ``new`` (no member's bucket known before), ``reproducible`` (a
    member verified reproducible), ``needs`` (:func:`needs_starvation`), ``within`` (it needs no
    more than ``max_starvation`` seconds; always, when that is None), ``fails`` (new,
    reproducible and within: the run fails on it). A group beyond ``max_starvation`` is still
    reported, never dropped."""
    out = []
    for g in groups(rows):
        new = not any(r["id"] in baseline for r in g)
        repro = any(bool(r.get("reproducible")) for r in g)
        needs = needs_starvation(g)
        within = max_starvation is None or needs is None or needs <= max_starvation
        out.append({"buckets": g, "new": new, "reproducible": repro, "needs": needs, "within": within,
                    "fails": new and repro and within})
    return out


def _mark(v: dict) -> str:
    if v["fails"]:
        return "new"
    if v["new"] and v["reproducible"] and not v["within"]:
        return "new, over --max-starvation"
    return "new, flaky" if v["new"] else "known"


# ---- baseline -------------------------------------------------------------------------------
def read_baseline(path: str) -> set[str]:
    """Bucket ids known before, from a ``ci.json``, a SARIF or a JUnit XML file written by
    ``fuzzfarm ci`` (every bucket of that run counts as known, new or not)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise BaselineError(f"cannot read the baseline {path!r}: {e.strerror}") from None
    text = data.decode("utf-8", "replace").lstrip()
    if text.startswith("<"):
        return _junit_ids(path)
    try:
        doc = json.loads(text)
    except ValueError:
        raise BaselineError(f"baseline {path!r} is neither JSON (ci.json, SARIF) nor JUnit XML; pass a file "
                            f"written by `fuzzfarm ci` or a campaign id") from None
    if isinstance(doc, dict) and "runs" in doc:  # SARIF: every bucket of the run is in its properties
        def shape(what: str) -> BaselineError:
            return BaselineError(f"baseline {path!r} looks like SARIF but {what}; pass the SARIF file that "
                                 f"`fuzzfarm ci --sarif` wrote, or a ci.json")
        ids = set()
        for run in _list(doc["runs"], lambda: shape("its runs are not a list")):
            if not isinstance(run, dict):
                raise shape("a run is not an object")
            props = _dict(run.get("properties"), lambda: shape("a run's properties are not an object"))
            ids.update(_strs(props.get("fuzzfarm_buckets"), lambda: shape("fuzzfarm_buckets is not a list of ids")))
            for res in _list(run.get("results"), lambda: shape("a run's results are not a list")):
                if not isinstance(res, dict):
                    raise shape("a result is not an object")
                fps = _dict(res.get("partialFingerprints"), lambda: shape("a result's partialFingerprints are not an object"))
                fp = fps.get(FINGERPRINT)
                if fp:
                    ids.update(_strs([fp], lambda: shape(f"a {FINGERPRINT} fingerprint is not a bucket id")))
        return ids
    if isinstance(doc, dict) and isinstance(doc.get("buckets"), list):  # ci.json: its buckets and its own baseline
        return ({b["id"] for b in doc["buckets"] if isinstance(b, dict) and isinstance(b.get("id"), str) and b["id"]}
                | set(_strs(doc.get("baseline"), lambda: BaselineError(
                    f"baseline {path!r} looks like a ci.json but its \"baseline\" is not a list of bucket ids; "
                    f"pass the ci.json that `fuzzfarm ci` wrote"))))
    raise BaselineError(f"baseline {path!r} has no buckets; pass a ci.json, SARIF or JUnit file written by "
                        f"`fuzzfarm ci`, or a campaign id")


def _list(v, err) -> list:
    """``v`` when it is a list (None: empty); else raises ``err()``."""
    if v is None:
        return []
    if not isinstance(v, list):
        raise err()
    return v


def _dict(v, err) -> dict:
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise err()
    return v


def _strs(v, err) -> list[str]:
    items = _list(v, err)
    if not all(isinstance(x, str) for x in items):
        raise err()
    return items


def _junit_ids(path: str) -> set[str]:
    from junitparser import JUnitXml
    try:
        xml = JUnitXml.fromfile(path)
    except Exception as e:  # noqa: BLE001 - any parse error is a bad baseline file
        raise BaselineError(f"baseline {path!r} is not valid JUnit XML ({e})") from None
    suites = [xml] if xml._tag == "testsuite" else list(xml)
    ids = set()
    for suite in suites:
        for case in suite:
            if (case.classname or "").startswith("fuzzfarm.") and case.name and case.name.split()[0].startswith("b"):
                ids.add(case.name.split()[0])
                # every bucket of the case's group is listed in its text ("bucket: ID" lines)
                texts = [getattr(res, "text", None) or "" for res in (case.result or [])] + [case.system_out or ""]
                for t in texts:
                    ids.update(re.findall(r"^bucket: (b[0-9a-f]+)$", t, re.M))
    return ids


# ---- reports --------------------------------------------------------------------------------
def _label(r: dict) -> str:
    return r.get("crash_type") or r.get("kind") or "failure"


def write_junit(path: str, *, target: str, campaign: str, verdicts_: list[dict], replay: dict[str, str],
                summary: dict) -> None:
    """One test case per root-cause group (its first reproducible bucket names it; every bucket
    of the group is listed in the text): a new reproducible one fails (replay commands in the
    text), a known one passes, a new one that does not reproduce is skipped (flaky)."""
    from junitparser import Failure, JUnitXml, Skipped, TestCase, TestSuite
    suite = TestSuite(f"fuzzfarm ci {target}")
    suite.add_property("campaign", campaign)
    suite.add_property("execs", str(summary.get("execs", 0)))
    for v in verdicts_:
        r = next((b for b in v["buckets"] if b.get("reproducible")), v["buckets"][0])
        case = TestCase(f"{r['id']} {_label(r)}", classname=f"fuzzfarm.{target.replace('/', '.')}")
        body = f"group: {r.get('group') or r['id']} {r.get('group_name') or ''}\n\n" + "".join(
            f"bucket: {b['id']}\nsignature: {b.get('signature')}\ncrash state: {views.crash_state_text(b)}\n"
            f"reproducible: {reproducibility(b)}\nfixed: {views.fix_label(b)}\nstarvation: {views.starvation_need(b)}\n"
            f"replay: {replay.get(b['id'], '-')}\n\n" for b in v["buckets"])
        if v["fails"]:
            f = Failure(f"new bug: {_label(r)} {views.crash_where(r)}"
                        + (f" ({len(v['buckets'])} buckets of one group)" if len(v["buckets"]) > 1 else ""), _label(r))
            f.text = body
            case.result = [f]
        elif v["new"] and v["reproducible"] and not v["within"]:
            case.result = [Skipped(f"new, but needs more starvation than --max-starvation: {_label(r)}; "
                                   f"{views.starvation_need(r)}")]
            case.system_out = body
        elif v["new"]:
            case.result = [Skipped(f"new, but not reproducible on replay: {_label(r)}")]
            case.system_out = body
        else:
            case.system_out = "known before (in the baseline)\n" + body
        suite.add_testcase(case)
    if not verdicts_:
        case = TestCase(f"{target}: no crash", classname="fuzzfarm.ci")
        case.system_out = f"campaign {campaign}: {summary.get('execs', 0)} execs, no crash\n"
        suite.add_testcase(case)
    xml = JUnitXml("fuzzfarm ci")
    xml.add_testsuite(suite)
    xml.write(path, pretty=True)


def sarif(*, target: str, harness_path: str | None, campaign: str, verdicts_: list[dict],
          replay: dict[str, str], version: str) -> dict:
    """SARIF 2.1.0: each new bucket a result (level error when it reproduces, warning when it
    does not) located at the harness, with its replay command; every bucket id of the run in
    the run's properties (so the file can serve as a baseline)."""
    rules, results, all_ids = {}, [], []
    uri = os.path.relpath(harness_path) if harness_path else target
    if uri.startswith(".."):
        uri = harness_path
    for v in verdicts_:
        for r in v["buckets"]:
            all_ids.append(r["id"])
            if not v["new"]:
                continue
            rule = (r.get("kind") or "failure").replace(" ", "-")
            rules.setdefault(rule, {"id": rule, "name": rule, "shortDescription": {"text": r.get("kind") or "failure"},
                                    "helpUri": "https://github.com/google/atheris"})
            cmd = replay.get(r["id"], "")
            results.append({
                "ruleId": rule, "level": "error" if v["fails"] else "warning",
                "message": {"text": f"{_label(r)} {views.crash_where(r, whole=True)} ({target}, bucket {r['id']}, reproducible "
                                    f"{reproducibility(r)}, fixed: {views.fix_label(r)}; {views.starvation_need(r)}). "
                                    f"Replay: {cmd}"},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri}}}],
                "partialFingerprints": {FINGERPRINT: r["id"]},
                "properties": {"bucket": r["id"], "group": r.get("group"), "signature": r.get("signature"),
                               "replay_command": cmd,
                               "crash_state": r.get("crash_state") or [], "reproducible": bool(r.get("reproducible")),
                               "fixed": r.get("fixed"), "campaign": campaign},
            })
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0",
            "runs": [{"tool": {"driver": {"name": "fuzzfarm", "version": version, "rules": list(rules.values())}},
                      "results": results, "properties": {"campaign": campaign, "fuzzfarm_buckets": all_ids}}]}


def markdown(*, target: str, campaign: str, summary: dict, verdicts_: list[dict], replay: dict[str, str],
             duration_s: float, jobs: int) -> str:
    """A short summary for a pull-request comment or ``$GITHUB_STEP_SUMMARY``."""
    failing = [v for v in verdicts_ if v["fails"]]
    head = (f"### fuzzfarm ci {target}: {len(failing)} new reproducible bug(s)" if failing
            else f"### fuzzfarm ci {target}: no new bug")
    known = sum(1 for v in verdicts_ if not v["new"])
    lines = [head, "",
             f"Campaign `{campaign}`: {jobs} job(s) × {duration_s:g} s, {summary.get('execs', 0):,} execs, "
             f"{summary.get('crashes', 0)} crash input(s), {sum(len(v['buckets']) for v in verdicts_)} bucket(s) "
             f"({known} known before).", ""]
    rows = [(v, r) for v in verdicts_ for r in v["buckets"]]
    if rows:
        lines += ["| | bucket | kind | crash state | repro | fixed | starvation | replay |",
                  "|---|---|---|---|---|---|---|---|"]
        for v, r in rows:
            cells = [_mark(v), f"`{r['id']}`", _label(r), views.crash_state_text(r), reproducibility(r),
                     views.fix_label(r), views.starvation_need(r), f"`{replay.get(r['id'], '-')}`"]
            lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"
