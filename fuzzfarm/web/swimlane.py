"""The interleaving of one run drawn as goroutine swimlanes, in server-rendered SVG.

Input: the structured trace of a run (``runone``'s ``trace_json``: events as ``Trace.to_json``
``[step, decision, now, gid, kind, detail, site, preempt]``, the goroutine legend
``[gid, name, created_by]`` and the failing goroutine). Output: one column per goroutine
(headed by its name and creation site), one row per event from top to bottom with the virtual
time on the left, preemptions as arrows from the lane switched away from to the lane switched
to, ``go`` statements as dotted arrows to the new goroutine, the failing event highlighted, and
the access that set a failure up linked to it when the trace shows which one it was (see
:func:`links`). Nothing here guesses: an event is drawn where the runtime recorded it.
"""

from __future__ import annotations

import dataclasses
import re
from html import escape

ROW_H = 20
LANE_W = 230  # the narrowest lane; a lane is wider when its head or its events' labels need it
GUTTER = 150  # virtual time and step column
HEAD_H = 64
# Text widths for the monospace font of style.css (svg.swimlanes): an advance of 0.6 em is what
# DejaVu Sans Mono and the usual ui-monospace fonts have, with a margin. Every label is drawn
# whole; lanes and the drawing are made wide enough for it, and .swimwrap scrolls.
CHAR_W = {11: 7.0, 12: 7.6, 10: 6.4}
LABEL_DX = 9  # a label starts this far right of its event's dot
MAX_EVENTS = 3000  # longer runs show their last MAX_EVENTS events (minimized reproducers are far shorter)

_MAP_OBJ = re.compile(r"^(?:clear\()?([^\[\)]+)")
_ARROW = re.compile(r"G(\d+)\s*->\s*G(\d+)")
_MAP_FAILURES = ("concurrent map writes", "concurrent map read and map write", "concurrent map iteration and map write")


@dataclasses.dataclass
class Lane:
    gid: int
    name: str
    created_by: str


@dataclasses.dataclass
class Link:
    src: int  # event index of the access that set the failure up
    dst: int  # event index it is linked to (the failing event)
    label: str


@dataclasses.dataclass
class Swimlanes:
    lanes: list[Lane]
    events: list[list]
    failing: int | None  # index into events of the failure event
    links: list[Link]
    skipped: int  # events before the first one drawn (MAX_EVENTS)
    # the failure's slice (runone's trace_json["slice"], gosim/trace_slice.py): indices into
    # ``events`` of the events on the objects in the failure, and what they are on
    slice: list[int] = dataclasses.field(default_factory=list)
    slice_objects: list[str] = dataclasses.field(default_factory=list)
    slice_goroutines: list[int] = dataclasses.field(default_factory=list)
    slice_why: str = ""
    slice_on: dict = dataclasses.field(default_factory=dict)  # event index -> the objects it is on

    @property
    def slice_rows(self) -> list[dict]:
        """The slice's events for the page's table: step, time, goroutine, event, detail, site."""
        rows = []
        for i in self.slice:
            e = self.events[i]
            detail, on = e[5], self.slice_on.get(i) or []
            if on and (e[4] == "select" or detail.startswith("select")):  # which channels it waits on
                detail = f"{detail} {', '.join(on)}".strip()
            rows.append({"index": i, "step": e[0], "now": _t(e[2]), "gid": e[3], "kind": e[4], "detail": detail,
                         "site": e[6], "failing": i == self.failing})
        return rows


def build(tj: dict) -> Swimlanes:
    """The drawing's model from a structured trace."""
    events = [list(e) for e in tj.get("events") or []]
    skipped = max(0, len(events) - MAX_EVENTS)
    events = events[skipped:]
    lanes = [Lane(int(g), str(name), str(by or "")) for g, name, by in tj.get("legend") or []]
    if any(int(e[3]) == 0 for e in events):  # timers firing, the scheduler itself
        lanes.insert(0, Lane(0, "runtime", "timers and the scheduler"))
    known = {ln.gid for ln in lanes}
    for e in events:  # never drop an event because the legend missed its goroutine
        if int(e[3]) not in known:
            known.add(int(e[3]))
            lanes.append(Lane(int(e[3]), f"G{e[3]}", ""))
    failing = next((i for i in range(len(events) - 1, -1, -1) if events[i][4] == "failure"), None)
    sl = tj.get("slice") or {}
    raw = [int(i) for i in sl.get("events") or ()]
    on = {i - skipped: [str(o) for o in objs] for i, objs in zip(raw, sl.get("on") or ())}
    idx = [i - skipped for i in raw if 0 <= i - skipped < len(events)]
    return Swimlanes(lanes, events, failing, links(events, failing), skipped, idx,
                     [str(o) for o in sl.get("objects") or ()], [int(g) for g in sl.get("goroutines") or ()],
                     str(sl.get("why") or ""), on)


def links(events: list[list], failing: int | None) -> list[Link]:
    """Accesses the runtime's own records tie to the failure. For the map failures (Go's
    ``hashWriting`` checks): the write of another goroutine still open on the same map when the
    failing goroutine's check fired (its ``map.write.begin`` / ``map.write`` with no
    ``map.write.end`` of the same goroutine after it). Other kinds: none (the trace does not
    say who set a nil func, and no link is drawn on a guess). ``send on closed channel``: the
    ``close`` of that channel (:func:`_closed_here`)."""
    if failing is None:
        return []
    fe = events[failing]
    kind, fg = fe[5], int(fe[3])
    if kind == "send on closed channel":
        return _closed_here(events, failing, fg)
    if kind not in _MAP_FAILURES:
        return []
    own = next((i for i in range(failing - 1, -1, -1) if int(events[i][3]) == fg and events[i][4].startswith("map.")),
               None)
    if own is None:
        return []
    obj = _map_obj(events[own][5])
    open_writes: dict[int, int] = {}
    for i, e in enumerate(events[:failing]):
        g = int(e[3])
        if g == fg or not e[4].startswith("map.write") or _map_obj(e[5]) != obj:
            continue
        if e[4] == "map.write.end":
            open_writes.pop(g, None)
        elif e[4] == "map.write" or g not in open_writes:
            open_writes[g] = i
    return [Link(src, failing, "write in progress on " + obj) for src in sorted(open_writes.values())]


def _closed_here(events: list[list], failing: int, fg: int) -> list[Link]:
    """``send on closed channel``: the failing goroutine's send (its ``send CH`` event, or the
    ``block chan send CH`` it was woken from by the close) and the last ``close CH`` event before
    the failure. A channel closed by the runtime itself (a context's done channel) records no close
    event: then no link."""
    own = next((i for i in range(failing - 1, -1, -1) if int(events[i][3]) == fg), None)
    if own is None:
        return []
    e = events[own]
    ch = e[5] if e[4] == "send" else (e[5][len("chan send "):] if e[4] == "block" and e[5].startswith("chan send ")
                                      else None)
    if not ch:
        return []
    close = next((i for i in range(failing - 1, -1, -1) if events[i][4] == "close" and events[i][5] == ch), None)
    return [] if close is None else [Link(close, failing, f"{ch} closed here")]


def _map_obj(detail: str) -> str:
    m = _MAP_OBJ.match(detail or "")
    return m.group(1) if m else detail


def _t(v: float) -> str:
    return f"{v:.3f}".rstrip("0").rstrip(".") if v else "0"


def _label(kind: str, detail: str) -> str:
    return kind if kind == "preempt" else f"{kind} {detail}".strip()


def _text_w(s: str, size: int) -> float:
    return len(s) * CHAR_W[size]


def layout(model: Swimlanes) -> tuple[dict[int, float], float]:
    """Each lane's x (its line) and the drawing's width. A lane is as wide as its head and its
    creation site need (at least LANE_W), so heads never overlap; an event's label may run on over
    the lanes to its right (each row holds one event: labels never meet), and the drawing is
    as wide as its rightmost label reaches, so no label is cut and none runs off the drawing."""
    lx, x = {}, float(GUTTER)
    for ln in model.lanes:
        w = max(LANE_W, _text_w(f"G{ln.gid} {ln.name}", 12) + 24, _text_w(ln.created_by, 10) + 24)
        lx[ln.gid] = x + w / 2
        x += w
    right = x
    for i, e in enumerate(model.events):
        size = 12 if i == model.failing else 11
        right = max(right, lx[int(e[3])] + LABEL_DX + _text_w(_label(e[4], e[5]), size) + 12)
    return lx, right + 20


def render(model: Swimlanes) -> str:
    """The SVG (a string; every text escaped)."""
    lx, width = layout(model)
    width = int(width + 0.5)
    height = HEAD_H + ROW_H * (len(model.events) + 1) + 10
    y = [HEAD_H + ROW_H * (i + 1) for i in range(len(model.events))]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="swimlanes" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" role="img" aria-label="goroutine swimlanes">',
           '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
           'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="arrowhead"/></marker>'
           '<marker id="arrow-link" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" '
           'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="linkhead"/></marker></defs>']
    out.append(f'<text x="8" y="{HEAD_H - 10}" class="colhead">virtual time · step</text>')
    for ln in model.lanes:
        x = lx[ln.gid]
        out.append(f'<g class="lane" data-gid="{ln.gid}"><title>G{ln.gid} {escape(ln.name)}'
                   f'{" created by " + escape(ln.created_by) if ln.created_by else ""}</title>'
                   f'<line x1="{x}" y1="{HEAD_H}" x2="{x}" y2="{height - 6}" class="laneline"/>'
                   f'<text x="{x}" y="16" class="lanehead">G{ln.gid} {escape(ln.name)}</text>'
                   f'<text x="{x}" y="32" class="lanesub">{escape(ln.created_by)}</text></g>')
    prev_t = None
    for i, e in enumerate(model.events):
        step, _dec, now, gid, kind, detail, site = e[:7]
        yy = y[i]
        if now != prev_t:
            out.append(f'<line x1="4" y1="{yy - ROW_H // 2}" x2="{width - 8}" y2="{yy - ROW_H // 2}" class="tick"/>'
                       f'<text x="8" y="{yy + 4}" class="time">t={_t(now)}s</text>')
            prev_t = now
        out.append(f'<text x="{GUTTER - 10}" y="{yy + 4}" class="step">{step}</text>')
    for i, e in enumerate(model.events):  # arrows first, so dots and labels stay on top
        gid, kind, detail = int(e[3]), e[4], e[5]
        m = _ARROW.match(detail or "") if kind == "preempt" else None
        if m and int(m.group(2)) in lx:
            x1, x2 = lx[int(m.group(1))], lx[int(m.group(2))]
            out.append(f'<line x1="{x1}" y1="{y[i]}" x2="{x2 - 6 if x2 > x1 else x2 + 6}" y2="{y[i] + ROW_H}" '
                       f'class="preempt" marker-end="url(#arrow)"><title>preemption {escape(detail)}</title></line>')
        if kind == "go":
            mg = re.match(r"G(\d+)", detail or "")
            if mg and int(mg.group(1)) in lx:
                x2 = lx[int(mg.group(1))]
                out.append(f'<line x1="{lx[gid]}" y1="{y[i]}" x2="{x2}" y2="{y[i]}" class="spawn" '
                           f'marker-end="url(#arrow)"><title>go {escape(detail)}</title></line>')
    for lk in model.links:
        x1, y1, x2, y2 = lx[int(model.events[lk.src][3])], y[lk.src], lx[int(model.events[lk.dst][3])], y[lk.dst]
        mx = (x1 + x2) / 2 + 40
        out.append(f'<path d="M{x1},{y1} Q{mx},{(y1 + y2) / 2} {x2},{y2 - 8}" class="link" data-src="{lk.src}" '
                   f'data-dst="{lk.dst}" marker-end="url(#arrow-link)"><title>{escape(lk.label)}</title></path>')
    linked = {lk.src for lk in model.links}
    in_slice = set(model.slice)
    for i, e in enumerate(model.events):
        step, _dec, now, gid, kind, detail, site = e[:7]
        x, yy = lx[int(gid)], y[i]
        cls = "ev" + (" failing" if i == model.failing else "") + (" preemptev" if kind == "preempt" else "") + \
              (" linked" if i in linked else "") + (" inslice" if i in in_slice else "")
        tip = f"step {step}, t={_t(now)}s, G{gid}: {kind} {detail}" + (f" at {site}" if site else "")
        label = _label(kind, detail)
        if i == model.failing:
            out.append(f'<rect x="{GUTTER - 4}" y="{yy - ROW_H // 2}" width="{width - GUTTER - 10}" height="{ROW_H}" '
                       f'class="failrow"/>')
        out.append(f'<g class="{cls}" data-index="{i}" data-gid="{gid}" data-kind="{escape(kind)}">'
                   f'<title>{escape(tip)}</title><circle cx="{x}" cy="{yy}" r="{7 if i == model.failing else 4}"/>'
                   f'<text x="{x + LABEL_DX}" y="{yy + 4}">{escape(label)}</text></g>')
    out.append("</svg>")
    return "".join(out)

