"""Helpers for the documentation tests: the repository's text files and Markdown anchors."""

from __future__ import annotations

import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# What a reader of the repository reads: code, tests, docs, deploy files and scripts.
SCANNED = ("fuzzfarm", "harnesses", "docs", "tests", "benchmarks", "deploy", "scripts", "README.md",
           "pyproject.toml")
_SKIP_DIRS = {"__pycache__", ".git", ".venv", "node_modules", ".pytest_cache"}


def text_files():
    """Every text file under ``SCANNED`` (binary files, caches and virtualenvs skipped)."""
    for top in SCANNED:
        path = ROOT / top
        if path.is_file():
            yield path
            continue
        for dirpath, dirnames, filenames in os.walk(path):
            dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS and not d.endswith(".egg-info"))
            for name in sorted(filenames):
                f = Path(dirpath) / name
                try:
                    data = f.read_bytes()
                except OSError:
                    continue
                if b"\0" in data:
                    continue
                try:
                    data.decode("utf-8")
                except UnicodeDecodeError:
                    continue
                yield f


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation other than ``-`` and ``_``
    dropped, spaces to ``-``."""
    text = re.sub(r"<[^>]+>", "", heading).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(md: Path) -> set[str]:
    """Every anchor a link into ``md`` can use: explicit ``<a id="...">`` and heading slugs
    (with GitHub's ``-1``, ``-2`` suffixes for repeated headings). Fenced code is skipped."""
    out: set[str] = set()
    seen: dict[str, int] = {}
    fenced = False
    for line in md.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        out.update(re.findall(r'<a id="([^"]+)"', line))
        m = re.match(r"#{1,6} (.*)", line)
        if m:
            s = slug(m.group(1))
            n = seen.get(s, 0)
            out.add(s if n == 0 else f"{s}-{n}")
            seen[s] = n + 1
    return out
