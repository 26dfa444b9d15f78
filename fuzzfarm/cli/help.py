"""Help texts that read as whole sentences in ``fuzzfarm --help`` and each command's ``--help``.

A command's help is its docstring. Typer (rich mode) keeps the docstring's own line breaks, so
a help wrapped at 100 columns in the source came out broken mid-sentence ("... With both" /
"queues (the default) ..."), and the list of commands shows the whole first paragraph. Here,
once every command is registered: each paragraph's lines are joined (the terminal wraps them),
and the list shows the first sentence, whole.
"""

from __future__ import annotations

import inspect
import re

# A sentence ends at . ! or ? followed by a space and a capital, a digit or a quote/backtick
# ("e.g. fixed" and "(0: none)" do not end one).
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`'\"])")


def reflow(doc: str) -> str:
    """``doc`` with each paragraph on one line (an indented block, e.g. an example, kept as is)."""
    paras = inspect.cleandoc(doc).split("\n\n")
    return "\n\n".join(p if any(ln.startswith(" ") for ln in p.splitlines()) else " ".join(p.split())
                       for p in paras)


def first_sentence(doc: str) -> str:
    """The first sentence of ``doc``'s first paragraph, whole."""
    head = reflow(doc).split("\n\n")[0]
    return _SENTENCE_END.split(head, maxsplit=1)[0].strip()


def _tidy(info) -> None:
    doc = info.help if isinstance(info.help, str) else inspect.getdoc(info.callback) if info.callback else None
    if not doc:
        return
    info.help = reflow(doc)
    if not isinstance(info.short_help, str):
        info.short_help = first_sentence(doc)


def whole_sentence_helps(app) -> None:
    """Reflow the help of every command of ``app`` and of its sub-apps (``fuzzfarm group``)."""
    for c in app.registered_commands:
        _tidy(c)
    for g in app.registered_groups:
        if isinstance(g.help, str) or (g.typer_instance and isinstance(g.typer_instance.info.help, str)):
            info = g if isinstance(g.help, str) else g.typer_instance.info
            info.help = reflow(info.help)
        if g.typer_instance is not None:
            whole_sentence_helps(g.typer_instance)
