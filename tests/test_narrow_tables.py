"""At 80 columns (``COLUMNS=80 fuzzfarm crashes``, ``status``, ``status --watch``, the live lines of
``submit --wait``/``demo``) no cell is cut inside a word: every id, number and Go name a row holds
appears whole in the output, and no line is longer than 80. Rows shaped like the demo's, with
the longest names and biggest numbers the farm shows."""

from __future__ import annotations

import re

from rich.console import Console

from fuzzfarm import views
from fuzzfarm.cli import tables as T
from fuzzfarm.collector.artifact import reproducibility

GO_STATE = ["(*objectChecker).Stop (wait_for_controlled_pods.go:713)",
            "(*WaitForControlledPodsMeasurement).deleteObjectLocked (wait_for_controlled_pods.go:640)"]
GROUPS = [
    {"id": "g2b97bfcb09", "name": "checker/buggy: hazard: WaitGroup reused before previous Wait returned at "
                                 "wait.Group.Wait",
     "buckets": [{"id": "bba7f48c6b650", "group": "g2b97bfcb09", "kind": "WaitGroup reused before previous Wait "
                  "returned", "count": 6, "joined_unreplayed": 4, "verify_ok": 3, "verify_n": 3, "reproducible": True,
                  "fix_keeps": True, "state": "done", "go_crash_state": ["wait.(*Group).Wait (wait.go:44)"]}]},
    {"id": "ma8770bdf3d", "name": "goroutine panic (TypeError) at ObjectChecker.stop < CheckerMap.delete_and_stop "
                                 "< WaitForControlledPods.delete_object_locked (split)",
     "buckets": [{"id": "be2634f96cf86", "group": "ma8770bdf3d", "kind": "goroutine panic", "count": 12345,
                  "joined_unreplayed": 12000, "verify_ok": 10, "verify_n": 10, "reproducible": True,
                  "fix_summary": "fixed", "fix_schedules": 12000, "state": "done", "go_crash_state": GO_STATE}]},
    {"id": "ga61336bd55", "name": "cluster-builder/buggy: concurrent map access to ByObject, "
                                 "ByObject[Pod].Namespaces, DefaultNamespaces, racing with writes in cache.defaultOpts",
     "buckets": [{"id": "b3d3a4885aba0", "group": "ga61336bd55", "kind": "concurrent map iteration and map write",
                  "count": 3, "verify_ok": 3, "verify_n": 3, "reproducible": True, "state": "verifying",
                  "fix_summary": "fails differently: goroutine panic at WaitForControlledPods.delete_object_locked"},
                 {"id": "b68e069f655ba", "group": "ga61336bd55", "kind": "concurrent map writes", "count": 1,
                  "verify_ok": 3, "verify_n": 10, "flaky": True, "reproducible": True, "state": "done"}]}]
BUCKETS = [b for g in GROUPS for b in g["buckets"]]
CAMPAIGNS = [{"id": "c12011748a1ea31", "harness": "cluster-builder", "variant": "library-fixed", "strategy": "mix",
              "phase": "triaging", "jobs_done": 12, "jobs": 16, "execs": 123456789, "fuzz_exec_per_s": 12345.6,
              "corpus_size": 123456, "crashes": 9999, "buckets": 123, "buckets_ready": 99, "first_reproducer_s": 3.1,
              "fuzz_progress": 0.42},
             {"id": "c12011748a1ea32", "harness": "checker", "variant": "buggy", "strategy": "bytes",
              "phase": "running", "jobs_done": 0, "jobs": 2, "execs": 25135, "fuzz_exec_per_s": 419.0,
              "corpus_size": 12, "crashes": 4, "buckets": 2, "buckets_ready": 1, "first_reproducer_s": None,
              "fuzz_progress": 1.0}]


def render(renderable, width: int = 80) -> str:
    c = Console(width=width, color_system=None, force_terminal=False)
    with c.capture() as cap:
        c.print(renderable, soft_wrap=False)
    return cap.get()


def assert_whole(text: str, values) -> None:
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 80, text
    for v in values:
        for word in str(v).split():
            assert word in text, f"{word!r} is cut at 80 columns:\n{text}"


def bucket_words(b: dict) -> list:
    return [b["id"], b["kind"], b["count"], reproducibility(b), views.fix_label(b), *b.get("go_crash_state", [])]


def test_crashes_groups_at_80_columns_keep_every_word_whole():
    text = render(T.group_table(GROUPS, "groups of buckets", wide=False))
    assert_whole(text, [g["id"] for g in GROUPS] + [g["name"] for g in GROUPS] + [w for b in BUCKETS
                                                                                  for w in bucket_words(b)])
    # crash states and long verdicts on lines of their own, under the table
    assert re.search(r"^be2634f96cf86  \(\*objectChecker\)\.Stop", text, re.M), text
    assert "  fixed: fails differently: goroutine panic at" in text


def test_flat_buckets_at_80_columns_keep_every_word_whole():
    text = render(T.bucket_table(BUCKETS, "buckets", wide=False))
    assert_whole(text, [w for b in BUCKETS for w in bucket_words(b)] + [b["group"] for b in BUCKETS])


def test_status_and_watch_at_80_columns_keep_every_number_whole():
    text = render(T.campaign_rows_table(CAMPAIGNS, wide=False))
    assert_whole(text, [w for c in CAMPAIGNS for w in (c["id"], c["phase"], f"{c['jobs_done']}/{c['jobs']}",
                                                       f"{c['fuzz_exec_per_s']:,.0f}", c["corpus_size"], c["buckets"])])
    assert "cluster-builder/" in text and "library-fixed" in text  # the target breaks after the slash only


def test_the_live_lines_at_80_columns_keep_bucket_count_and_figures_whole():
    items = [(c, c["phase"], 3723.0) for c in CAMPAIGNS]
    text = render(T.progress_view(items))
    assert_whole(text, [w for c in CAMPAIGNS for w in (c["id"], f"{c['harness']}/{c['variant']}", c["phase"],
                                                       f"buckets {c['buckets']} ({c['buckets_ready']} ready)",
                                                       f"crashes {c['crashes']}", f"execs {c['execs']:,}",
                                                       f"{c['fuzz_exec_per_s']:,.0f} exec/s", "62:03")])
