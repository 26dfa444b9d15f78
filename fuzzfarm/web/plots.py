"""Small server-rendered SVG line charts (no chart library, no JavaScript): a campaign's execs,
coverage and buckets over time. Each chart has its axes, the last value and what it counts."""

from __future__ import annotations

from html import escape

W, H = 360, 150
PAD_L, PAD_R, PAD_T, PAD_B = 56, 12, 22, 28
MAX_POINTS = 400  # a polyline of more points than pixels draws nothing more


def _fmt(v: float) -> str:
    if abs(v) >= 1e6:
        return f"{v / 1e6:.1f}M"
    if abs(v) >= 1e4:
        return f"{v / 1e3:.0f}k"
    return f"{v:g}" if v == int(v) else f"{v:.1f}"


def _thin(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    if len(points) <= MAX_POINTS:
        return points
    step = len(points) / MAX_POINTS
    return [points[int(i * step)] for i in range(MAX_POINTS)] + [points[-1]]


def line_chart(points: list[tuple[float, float]], *, title: str, css: str, step: bool = False,
               x_max: float | None = None) -> str:
    """An SVG chart of ``points`` (x: seconds since submit). ``step``: a staircase (counts that
    jump, like buckets found)."""
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart {css}" width="{W}" height="{H}" '
           f'viewBox="0 0 {W} {H}" role="img" aria-label="{escape(title)}">',
           f'<text x="{PAD_L}" y="14" class="charttitle">{escape(title)}</text>']
    x0, y0, pw, ph = PAD_L, H - PAD_B, W - PAD_L - PAD_R, H - PAD_T - PAD_B
    out.append(f'<line x1="{x0}" y1="{y0}" x2="{x0 + pw}" y2="{y0}" class="axis"/>'
               f'<line x1="{x0}" y1="{y0}" x2="{x0}" y2="{y0 - ph}" class="axis"/>')
    if not points:
        out.append(f'<text x="{x0 + 10}" y="{y0 - ph / 2}" class="empty">no data yet</text></svg>')
        return "".join(out)
    pts = _thin(sorted(points))
    xm = max(x_max or 0, pts[-1][0], 1e-9)
    ym = max(max(v for _, v in pts), 1)
    def px(t: float) -> float:
        return round(x0 + pw * t / xm, 1)
    def py(v: float) -> float:
        return round(y0 - ph * v / ym, 1)
    coords = [f"{px(0)},{py(0)}"] if step else []
    prev = 0
    for t, v in pts:
        if step:
            coords.append(f"{px(t)},{py(prev)}")
        coords.append(f"{px(t)},{py(v)}")
        prev = v
    if step:
        coords.append(f"{px(xm)},{py(prev)}")
    out.append(f'<polyline points="{" ".join(coords)}" class="series"/>')
    out.append(f'<text x="{x0 - 4}" y="{y0 - ph + 4}" class="ylab">{_fmt(ym)}</text>'
               f'<text x="{x0 - 4}" y="{y0 + 4}" class="ylab">0</text>'
               f'<text x="{x0}" y="{y0 + 16}" class="xlab">0 s</text>'
               f'<text x="{x0 + pw}" y="{y0 + 16}" class="xlab end">{_fmt(round(xm, 1))} s</text>'
               f'<text x="{x0 + pw}" y="14" class="last">last {_fmt(pts[-1][1])}</text></svg>')
    return "".join(out)
