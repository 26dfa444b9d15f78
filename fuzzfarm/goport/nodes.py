"""Walking goast's JSON tree (the nodes ``goast.go`` writes): one place for the translator and the
rule mixins it imports (pointers, valuetypes), which cannot import it back."""

from __future__ import annotations


def walk(node):
    """Every dict node under ``node`` (itself included)."""
    if isinstance(node, dict):
        yield node
        for v in node.values():
            yield from walk(v)
    elif isinstance(node, list):
        for v in node:
            yield from walk(v)
