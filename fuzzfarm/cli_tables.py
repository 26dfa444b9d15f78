"""The CLI's tables: a narrow layout that reads at 80 columns, a wide one for big terminals,
``--wide`` and pipes; every user string goes in as plain text (``Text``), never as rich markup,
so ``map[string]int`` in a description or a crash state stays ``map[string]int``.

Pure: rows (dicts) in, rich renderables out; :mod:`fuzzfarm.cli` prints them.
"""

from __future__ import annotations

from rich import box
from rich.console import Group
from rich.table import Table
from rich.text import Text

# At or above this many columns the wide tables fit; below, the narrow layout is used.
WIDE_MIN_COLUMNS = 140


def t(value) -> Text:
    """A table cell or line holding ``value`` as plain text (no markup)."""
    return Text("" if value is None else str(value))


def is_wide(width: int, wide: bool = False) -> bool:
    return wide or width >= WIDE_MIN_COLUMNS


def _yn(v) -> str:
    return "-" if v in (None, "") else ("yes" if v else "NO")


def fixed_cell(r: dict) -> str:
    return "kept (hazard)" if r.get("fix_keeps") else _yn(r.get("fixed"))


def repro_cell(r: dict) -> str:
    return f"{r['verify_ok']}/{r['verify_n']}" if r.get("verify_n") not in (None, "") else "-"


def crash_state_text(r: dict) -> str:
    return " < ".join(r.get("crash_state") or [])


def bucket_table(rows: list[dict], title: str, *, wide: bool):
    """The bucket table. Narrow: bucket, group, kind, count, repro, fixed, and under the table
    each bucket's crash state on a line of its own. Wide: every column in one row."""
    if wide:
        tb = Table(title=title)
        for c in ("bucket", "group", "kind", "crash state", "triage", "count", "size orig→min", "preemptions",
                  "reproducible", "fixed"):
            tb.add_column(c, no_wrap=c == "bucket")
        for r in rows:
            size = (f"{r['original_size']}→{r['minimized_size']}" if r.get("minimized_size") not in (None, "")
                    else f"{r.get('original_size')}")
            pre = (f"{r.get('preemptions_before')}→{r.get('preemptions_after')}"
                   if r.get("preemptions_after") not in (None, "") else str(r.get("preemptions_before", "")))
            tb.add_row(*map(t, (r["id"], r.get("group") or "-", r.get("crash_type") or r.get("kind") or "",
                                crash_state_text(r), r.get("state") or "", r.get("count"), size, pre,
                                repro_cell(r), fixed_cell(r))))
        return tb
    tb = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False)
    tb.add_column("bucket", no_wrap=True)
    tb.add_column("group", overflow="fold")
    tb.add_column("kind", overflow="fold", ratio=1)
    tb.add_column("count", justify="right", no_wrap=True)
    tb.add_column("repro", no_wrap=True)
    tb.add_column("fixed", overflow="fold")
    for r in rows:
        kind = r.get("kind") or ""
        if r.get("state") not in (None, "", "done"):
            kind += f" ({r.get('state')})"  # triage still under way: its verdicts are not final
        tb.add_row(*map(t, (r["id"], r.get("group") or "-", kind, r.get("count"), repro_cell(r), fixed_cell(r))))
    states = Text()
    for r in rows:
        states.append(f"{r['id']}  ", style="bold")
        states.append(crash_state_text(r) or "-")
        states.append("\n")
    return Group(tb, Text("crash state (innermost first):", style="dim"), states)


def campaign_rows_table(rows: list[dict], *, wide: bool, title: str = "campaigns"):
    """All campaigns with their live figures (what ``status`` and ``status --watch`` show)."""
    tb = Table(title=title, box=None if not wide else box.HEAVY_HEAD, pad_edge=False)
    cols = (["campaign", "harness", "variant", "strategy", "status", "jobs done", "execs", "exec/s", "corpus",
             "crashes", "buckets", "first repro"] if wide else
            ["campaign", "target", "status", "jobs", "exec/s", "corpus", "bkts", "1st repro"])
    for c in cols:
        tb.add_column(c, no_wrap=c == "campaign", justify="right" if c in (
            "execs", "exec/s", "corpus", "crashes", "buckets", "bkts") else "left")
    for s in rows:
        first = "-" if s.get("first_reproducer_s") is None else f"{s['first_reproducer_s']:.1f} s"
        jobs = f"{s['jobs_done']}/{s['jobs']}"
        eps = f"{s.get('exec_per_s', 0):,.0f}"
        if wide:
            cells = (s["id"], s["harness"], s["variant"], s["strategy"], s["phase"], jobs, f"{s['execs']:,}", eps,
                     s.get("corpus_size", 0), s["crashes"], s["buckets"], first)
        else:
            cells = (s["id"], f"{s['harness']}/{s['variant']}", s["phase"], jobs, eps, s.get("corpus_size", 0),
                     s["buckets"], first)
        tb.add_row(*map(t, cells))
    return tb
