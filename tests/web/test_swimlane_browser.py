"""The swimlanes in a real headless Chromium (tests/web/conftest.py), with the web view's own
stylesheet: every event label and lane head is drawn whole (no "…") and inside the drawing (none
runs off its right edge, the last lane's included), lane heads do not overlap, and the box
scrolls to show the drawing at its own size. The run: the etcd simple-token deadlock (HC-16),
four goroutines with long names, creation sites and channel labels, traced as the collector
traces a reproducer; and the failure's slice is drawn bold and listed on the bucket page."""

from __future__ import annotations

import os

import pytest

from fuzzfarm import gosim
from fuzzfarm.examples import load
from fuzzfarm.strategies import RandomStrategy
from fuzzfarm.web import swimlane

pytestmark = pytest.mark.timeout(300)

CSS = os.path.join(os.path.dirname(swimlane.__file__), "static", "style.css")


@pytest.fixture(scope="module")
def hc16_trace():
    mod = load("hc16")
    for seed in range(50):
        rep = gosim.run(mod.buggy, strategy=RandomStrategy(seed), trace=True, **mod.RUN_KW)
        if rep.failure is not None:
            break
    assert rep.failure is not None
    return {"events": rep.trace.to_json(), "legend": [list(g) for g in rep.legend],
            "failing_goroutine": rep.failure.goroutine, "slice": rep.trace_slice().to_json()}


def _page(browser, svg: str):
    with open(CSS) as f:
        css = f.read()
    ctx = browser.new_context(viewport={"width": 1400, "height": 900})
    pg = ctx.new_page()
    pg.set_content(f"<!doctype html><html><head><style>{css}</style></head><body><main>"
                   f"<div class=\"swimwrap\">{svg}</div></main></body></html>")
    return ctx, pg


MEASURE = """() => {
  const svg = document.querySelector('svg.swimlanes');
  const width = svg.width.baseVal.value;
  const texts = [...svg.querySelectorAll('g.ev text, g.lane text')].map(t => {
    const b = t.getBBox();
    return {text: t.textContent, x: b.x, right: b.x + b.width, head: t.classList.contains('lanehead'),
            sub: t.classList.contains('lanesub'),
            y: b.y, bottom: b.y + b.height};
  });
  const wrap = document.querySelector('.swimwrap');
  return {width, texts, shown: svg.getBoundingClientRect().width, scrollW: wrap.scrollWidth,
          clientW: wrap.clientWidth, overflowX: getComputedStyle(wrap).overflowX};
}"""


def test_every_label_whole_and_inside_the_drawing(browser, hc16_trace):
    model = swimlane.build(hc16_trace)
    ctx, pg = _page(browser, swimlane.render(model))
    try:
        m = pg.evaluate(MEASURE)
    finally:
        ctx.close()
    want = ({swimlane._label(e[4], e[5]) for e in model.events} | {f"G{ln.gid} {ln.name}" for ln in model.lanes}
            | {ln.created_by for ln in model.lanes if ln.created_by})
    labels = [t for t in m["texts"] if not t["text"].startswith("t=")]
    assert not [t["text"] for t in labels if "…" in t["text"]]
    assert {t["text"] for t in m["texts"] if t["text"] in want} == want  # every label, whole
    # nothing runs off the drawing: the last lane's labels end inside it too
    off = [(t["text"], round(t["right"]), m["width"]) for t in m["texts"] if t["right"] > m["width"] or t["x"] < 0]
    assert not off, off
    for row in ("head", "sub"):  # lane heads and creation sites: side by side, never over each other
        heads = sorted((t for t in m["texts"] if t[row]), key=lambda t: t["x"])
        assert len(heads) == len(model.lanes)
        assert all(a["right"] <= b["x"] for a, b in zip(heads, heads[1:])), heads
    # drawn at its own size; the box scrolls rather than shrinking or cutting it
    assert abs(m["shown"] - m["width"]) < 1 and m["overflowX"] == "auto" and m["scrollW"] >= m["width"]


def test_the_slice_is_drawn_bold_and_listed(browser, hc16_trace):
    model = swimlane.build(hc16_trace)
    assert model.slice and len(model.slice) < len(model.events)
    ctx, pg = _page(browser, swimlane.render(model))
    try:
        marked = pg.evaluate("() => [...document.querySelectorAll('svg.swimlanes g.ev.inslice')].map("
                             "g => [+g.dataset.index, getComputedStyle(g.querySelector('text')).fontWeight])")
    finally:
        ctx.close()
    assert [i for i, _ in marked] == model.slice
    assert all(int(w) >= 700 for _, w in marked)
    rows = model.slice_rows
    assert [r["index"] for r in rows] == model.slice and rows[-1]["kind"] == "failure" and rows[-1]["failing"]
    # a select names its channels (the trace's event detail does not): resetSimpleTokenCh is among them
    sel = [r for r in rows if r["kind"] == "select" or r["detail"].startswith("select")]
    assert sel and all("resetSimpleTokenCh" in r["detail"] for r in sel), sel
