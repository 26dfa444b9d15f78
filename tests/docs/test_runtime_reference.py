"""``docs/RUNTIME.md`` documents every public name of ``fuzzfarm.gosim``, and only those.

A name counts as documented when it is the whole of a backticked span (optionally followed by its
call signature) in a heading or in the first cell of a table row. A name added to ``gosim`` later
must get its entry (its Go counterpart, whether it is a scheduling point, what blocks, how it
fails); a construct listed as "not built yet" must leave that table once it exists.
"""

from __future__ import annotations

import re

from fuzzfarm import gosim

from docs_lib import ROOT

DOC = ROOT / "docs" / "RUNTIME.md"
_SPAN = re.compile(r"`([^`]+)`")
_NAME = re.compile(r"([A-Za-z_]\w*)(?:\(.*)?$")


def _sections() -> dict[str, list[str]]:
    """``## `` section title -> its lines (fenced code kept out)."""
    out: dict[str, list[str]] = {"": []}
    cur, fenced = "", False
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        if line.startswith("## "):
            cur = line[3:].strip()
            out[cur] = []
        out[cur].append(line)
    return out


def _names(cell: str) -> set[str]:
    return {m.group(1) for span in _SPAN.findall(cell) if (m := _NAME.fullmatch(span.strip()))}


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _is_row(line: str) -> bool:
    return line.startswith("|") and not re.fullmatch(r"\|[-| :]+\|?", line.strip())


def _documented() -> set[str]:
    names: set[str] = set()
    for title, lines in _sections().items():
        if title.startswith("Go constructs not built yet"):
            continue
        for line in lines:
            if line.startswith("#"):
                names |= _names(line)
            elif _is_row(line):
                names |= _names(_cells(line)[0])
    return names


def test_every_public_name_is_documented():
    missing = sorted(set(gosim.__all__) - _documented())
    assert not missing, (f"docs/RUNTIME.md has no entry (a heading or a table row) for: {', '.join(missing)}; "
                         "document each with its Go counterpart and semantics")


def test_every_reference_heading_names_a_public_name():
    stale = []
    for lines in _sections().values():
        for line in lines:
            m = re.fullmatch(r"### `([^`]+)`", line.strip())
            if m and _NAME.fullmatch(m.group(1)) and _NAME.fullmatch(m.group(1)).group(1) not in gosim.__all__:
                stale.append(m.group(1))
    assert not stale, f"docs/RUNTIME.md documents names gosim does not export: {stale}"


def test_constructs_listed_as_missing_do_not_exist():
    rows = [line for line in _sections()["Go constructs not built yet"] if _is_row(line)]
    assert len(rows) > 10  # header + rows: the table is there
    exist = []
    for line in rows[1:]:
        for name in _names(_cells(line)[1]):
            if hasattr(gosim, name):
                exist.append(name)
    assert not exist, (f"gosim now has {exist}: move them from 'Go constructs not built yet' into the "
                       "reference in docs/RUNTIME.md")


def test_code_blocks_run():
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert blocks
    for code in blocks:
        exec(compile(code, str(DOC), "exec"), {})
