"""The CLI's tables: a narrow layout that reads at 80 columns, a wide one for big terminals,
``--wide`` and pipes; every user string goes in as plain text (``Text``), never as rich markup,
so ``map[string]int`` in a description or a crash state stays ``map[string]int``.

Pure: rows (:func:`fuzzfarm.views.bucket_rows`) in, rich renderables out; the commands print them.
"""

from __future__ import annotations

from rich import box
from rich.console import Group
from rich.table import Table
from rich.text import Text

from fuzzfarm import views
from fuzzfarm.collector.artifact import reproducibility

# The line above the narrow tables' crash states: a stack reads innermost first; a race's two
# accesses and a lock cycle's goroutines are sides (views.crash_state_text labels them).
STATE_HEAD = "crash state (a stack: innermost first; a race or lock cycle: its sides):"

# At or above this many columns the wide tables fit; below, the narrow layout is used.
WIDE_MIN_COLUMNS = 140


def t(value) -> Text:
    """A table cell or line holding ``value`` as plain text (no markup)."""
    return Text("" if value is None else str(value))


def is_wide(width: int, wide: bool = False) -> bool:
    return wide or width >= WIDE_MIN_COLUMNS


def count_cell(r: dict) -> str:
    """A bucket's input count, saying how many of them joined it by the fuzz engine's signature
    without a collector replay (farm/triage.py): those were not replayed at intake."""
    n = int(r.get("joined_unreplayed") or 0)
    return f"{r.get('count')}" + (f" ({n} joined unreplayed)" if n else "")


def _states(rows: list[dict]) -> Text:
    """Under a narrow table: each bucket's crash state, and its fix proof when there is one."""
    states = Text()
    for r in rows:
        states.append(f"{r['id']}  ", style="bold")
        states.append(views.crash_state_text(r) or "-")
        states.append("\n")
        if count_cell(r) != str(r.get("count")):  # the narrow tables' count is the number alone
            states.append(f"  count: {count_cell(r)}\n")
        if narrow_fixed(r) != views.fix_label(r):
            states.append(f"  fixed: {views.fix_label(r)}\n")
        if r.get("fix_proof_line"):
            states.append(f"  fix: {r['fix_proof_line']}\n", style="dim")
        if r.get("starvation_s") not in (None, "") and float(r["starvation_s"]) > 0:
            states.append(f"  {views.starvation_need(r)}\n", style="dim")
    return states


def bucket_table(rows: list[dict], title: str, *, wide: bool):
    """The bucket table. Narrow: bucket, group, kind, count, repro, fixed, and under the table
    each bucket's crash state on a line of its own. Wide: every column in one row."""
    if wide:
        tb = Table(title=title)
        for c in ("bucket", "group", "kind", "crash state", "triage", "count", "size orig→min", "preemptions",
                  "starvation", "reproducible", "fixed", "proof"):
            tb.add_column(c, no_wrap=c == "bucket")
        for r in rows:
            size = (f"{r['original_size']}→{r['minimized_size']}" if r.get("minimized_size") not in (None, "")
                    else f"{r.get('original_size')}")
            pre = (f"{r.get('preemptions_before')}→{r.get('preemptions_after')}"
                   if r.get("preemptions_after") not in (None, "") else str(r.get("preemptions_before", "")))
            tb.add_row(*map(t, (r["id"], r.get("group") or "-", r.get("crash_type") or r.get("kind") or "",
                                views.crash_state_text(r), r.get("state") or "", count_cell(r), size, pre,
                                views.starvation_cell(r), reproducibility(r), views.fix_label(r), r.get("fix_proof_line") or "-")))
        return tb
    cells = [(r["id"], r.get("group") or "-", narrow_kind(r), str(r.get("count")), reproducibility(r), narrow_fixed(r))
             for r in rows]
    tb = Table(title=title, box=None, pad_edge=False, expand=True)
    for i, c in enumerate(("bucket", "group", "kind", "count", "repro", "fixed")):
        _narrow_column(tb, c, [row[i] for row in cells])
    for row in cells:
        tb.add_row(*map(t, row))
    return Group(tb, Text(STATE_HEAD, style="dim"), _states(rows))


# Narrow layout (80 columns): a cell wraps only between words, never inside one: every column is
# at least as wide as the longest word it holds (a number, an id, a Go name stays whole), ids and
# the reproducibility never wrap. Long words (Go names in a group's name or a verdict) are kept
# out of the table: a group's name is a line of its own, a long verdict is under the table.
NO_WRAP = ("bucket", "group / bucket", "group", "repro")
LONG_WORD = 20  # a verdict with a longer word (a Go name) is shown in full under the table


def _narrow_column(tb: Table, name: str, values: list[str]) -> None:
    word = max((len(w) for v in values for w in str(v).split()), default=1)
    whole = max((len(str(v)) for v in values), default=1)
    if name in NO_WRAP:
        tb.add_column(name, no_wrap=True, min_width=max(whole, len(name)))
    elif name in ("kind", "fixed"):  # share what is left, never narrower than their longest word
        tb.add_column(name, ratio=1, min_width=max(word, len(name)))
    else:  # count: as wide as its content up to 13, never narrower than its longest word
        tb.add_column(name, justify="right", width=max(word, min(whole, 13), len(name)))


def narrow_kind(r: dict) -> str:
    kind = r.get("kind") or ""
    if r.get("state") not in (None, "", "done"):
        kind += f" ({r.get('state')})"  # triage still under way: its verdicts are not final
    return kind


def narrow_fixed(r: dict) -> str:
    """The fixed cell, or its first words when a longer word (a Go name) would not fit a narrow
    column; the whole verdict is then under the table (``_states``)."""
    full = views.fix_label(r)
    if max((len(w) for w in full.split()), default=0) <= LONG_WORD:
        return full
    if ":" in full:  # "fails differently: KIND at STATE": the verdict, its detail below
        return full.split(":", 1)[0] + " (below)"
    import itertools
    return " ".join(itertools.takewhile(lambda w: len(w) <= LONG_WORD, full.split())) + " (below)"


RATE_LEGEND = ("exec/s: execs over fuzzing time (each job's execs over the seconds it fuzzed; a campaign's "
               "jobs summed); crashes: distinct failing inputs")


def campaign_rows_table(rows: list[dict], *, wide: bool, title: str = "campaigns"):
    """All campaigns with their live figures (what ``status`` and ``status --watch`` show)."""
    tb = Table(title=title, box=None if not wide else box.HEAVY_HEAD, pad_edge=False, caption=RATE_LEGEND,
               caption_justify="left")
    cols = (["campaign", "harness", "variant", "strategy", "status", "jobs done", "execs", "exec/s", "corpus",
             "crashes", "buckets", "first repro"] if wide else
            ["campaign", "target", "status", "jobs", "exec/s", "corpus", "bkts", "1st repro"])
    for c in cols:  # numbers and ids never wrap: a number cut in two reads as two numbers
        tb.add_column(c, no_wrap=c in ("campaign", "jobs", "jobs done", "execs", "exec/s", "corpus", "crashes",
                                       "buckets", "bkts"),
                      justify="right" if c in ("execs", "exec/s", "corpus", "crashes", "buckets", "bkts") else "left",
                      min_width=16 if c == "target" else None)
    for s in rows:
        first = "-" if s.get("first_reproducer_s") is None else f"{s['first_reproducer_s']:.1f} s"
        jobs = f"{s['jobs_done']}/{s['jobs']}"
        eps = f"{s.get('fuzz_exec_per_s', 0):,.0f}"
        if wide:
            cells = (s["id"], s["harness"], s["variant"], s["strategy"], s["phase"], jobs, f"{s['execs']:,}", eps,
                     s.get("corpus_size", 0), s["crashes"], s["buckets"], first)
        else:
            target = f"{s['harness']}/{s['variant']}"
            if len(target) > 16:  # harness and variant each stay whole: the line breaks after the slash
                target = f"{s['harness']}/\n{s['variant']}"
            cells = (s["id"], target, s["phase"], jobs, eps, s.get("corpus_size", 0), s["buckets"], first)
        tb.add_row(*map(t, cells))
    return tb


def group_table(groups: list[dict], title: str, *, wide: bool):
    """Root-cause groups, each with its buckets under it: wide, a bold row (id, name, total count)
    and the buckets indented in one table; narrow, see :func:`_narrow_groups`."""
    if not wide:
        return _narrow_groups(groups, title)
    tb = Table(title=title, box=box.HEAVY_HEAD, pad_edge=False)
    cols = ("group / bucket", "kind", "crash state", "triage", "count", "reproducible", "fixed", "proof")
    for c in cols:
        tb.add_column(c, no_wrap=c == "group / bucket", overflow="fold", justify="right" if c == "count" else "left")
    for g in groups:
        n = sum(int(b.get("count") or 0) for b in g["buckets"])
        tb.add_row(*map(t, (g["id"], g["name"], "", "", n, "", "", "")), style="bold")
        for r in g["buckets"]:
            # the fix proof: the narrow layout's ``fix:`` line, a column here (also what a pipe gets)
            tb.add_row(*map(t, (f"  {r['id']}", r.get("crash_type") or r.get("kind") or "", views.crash_state_text(r),
                                r.get("state") or "", count_cell(r), reproducibility(r), views.fix_label(r),
                                r.get("fix_proof_line") or "-")))
    return tb


def _narrow_groups(groups: list[dict], title: str):
    """80 columns: per group a line (id, its inputs, its name wrapped between words), then its
    buckets in a table whose columns line up across groups (widths from every group's rows);
    crash states under the last."""
    rows = [b for g in groups for b in g["buckets"]]
    cells = [(f"  {r['id']}", narrow_kind(r), str(r.get("count")), reproducibility(r), narrow_fixed(r)) for r in rows]
    cols = ("group / bucket", "kind", "count", "repro", "fixed")
    parts: list = [Text(title, style="italic", justify="center")]
    k = 0
    for i, g in enumerate(groups):
        n = sum(int(b.get("count") or 0) for b in g["buckets"])
        parts.append(Text.assemble((g["id"], "bold"), f"  {n} input(s)  ", (str(g.get("name") or ""), "bold")))
        tb = Table(box=None, pad_edge=False, expand=True, show_header=i == 0)
        for j, c in enumerate(cols):
            _narrow_column(tb, c, [row[j] for row in cells])
        for _ in g["buckets"]:
            tb.add_row(*map(t, cells[k]))
            k += 1
        parts.append(tb)
    return Group(*parts, Text(STATE_HEAD, style="dim"), _states(rows))


def progress_view(items: list[tuple[dict, str, float]]) -> Text:
    """The live lines of ``submit --wait`` and ``demo``, two per campaign so that they fit 80
    columns whole: harness/variant, id, phase, share fuzzed, time; then the numbers a user
    watches, buckets first. ``items``: (campaign summary, phase, seconds watched)."""
    out = Text()
    for s, phase, elapsed in items:
        m, sec = divmod(int(elapsed), 60)
        out.append(f"{s['harness']}/{s['variant']} {s['id']}  ")
        out.append(phase, style="bold")
        out.append(f"  {min(1.0, s['fuzz_progress']) * 100:3.0f}% fuzzed  {m}:{sec:02d}\n")
        out.append(f"  buckets {s['buckets']} ({s['buckets_ready']} ready)  crashes {s['crashes']}  "
                   f"execs {s['execs']:,}  {s.get('fuzz_exec_per_s', 0):,.0f} exec/s\n")
        if phase == "queued" and elapsed > 15:
            out.append("  not started yet: is a worker consuming -Q fuzz?\n", style="yellow")
    return out
