"""The repository stands alone: nothing in it points to a file outside it, and every
``docs/<name>.md`` a comment, docstring or document cites exists, with the anchor it names.

Comments used to cite notes that lived outside the repository (an upstream spec, notes on the
environment, a list of cases); what the code needs from them is now in ``docs/`` and the code
cites that. The patterns below are built from pieces so that this file does not match them.
"""

from __future__ import annotations

import re

from docs_lib import ROOT, anchors, text_files

# References to the notes outside the repository, in every spelling the code used.
OUTSIDE = re.compile("|".join([
    "SPEC" + " \u00a7",                    # the upstream spec's sections
    r"SPEC\.md",
    r"SPEC [HT]\d",                       # its hazards and interleavings by number
    "ENVIRONMENT" + r"\.md",             # the environment notes
    "EXAMPLES" + r"\.md",                # the case list
    r"\.\./" + "shared",
    "/work/" + "shared",
    "ANCHORS" + " \u00a7",
]))

# ``docs/<name>.md`` or ``docs/<name>.md#<anchor>`` in any text; Markdown links inside docs/ as well.
CITED = re.compile(r"(?<![\w/.-])docs/([\w./-]+?\.md)(?:#([\w-]+))?")
MD_LINK = re.compile(r"\]\(([^)\s#]*\.md)?(?:#([\w-]+))?\)")


def test_no_reference_to_files_outside_the_repository():
    hits = []
    for f in text_files():
        for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
            if OUTSIDE.search(line):
                hits.append(f"{f.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not hits, "references to notes outside the repository (put what is needed in docs/ and cite that):\n" + \
        "\n".join(hits)


def _check(target, anchor, where, missing, cache):
    if not target.is_file():
        missing.append(f"{where}: {target.relative_to(ROOT)} does not exist")
        return
    if anchor:
        if target not in cache:
            cache[target] = anchors(target)
        if anchor not in cache[target]:
            missing.append(f"{where}: {target.relative_to(ROOT)} has no anchor #{anchor}")


def test_every_cited_docs_file_and_anchor_exists():
    missing: list[str] = []
    cache: dict = {}
    cited = 0
    for f in text_files():
        text = f.read_text(encoding="utf-8")
        for n, line in enumerate(text.splitlines(), 1):
            where = f"{f.relative_to(ROOT)}:{n}"
            for m in CITED.finditer(line):
                cited += 1
                _check(ROOT / "docs" / m.group(1), m.group(2), where, missing, cache)
            if f.suffix == ".md" and (ROOT / "docs") in f.parents:
                for m in MD_LINK.finditer(line):
                    rel, anchor = m.group(1), m.group(2)
                    if rel and "://" in rel:
                        continue
                    target = (f.parent / rel).resolve() if rel else f
                    if ROOT not in target.parents:
                        missing.append(f"{where}: link to {rel} leaves the repository")
                        continue
                    if rel or anchor:
                        _check(target, anchor, where, missing, cache)
    assert cited > 50, f"only {cited} docs/ citations found: is the scan looking at the repository?"
    assert not missing, "\n".join(missing)
