"""How a command this installation provides (``fuzzfarm``, ``pytest``) is typed in the user's shell.

The CLI prints commands for the user to run next (``fuzzfarm replay DIR``, ``pytest DIR``). A
printed command must run as printed: the bare name when the shell's PATH finds this installation's
(the venv is active, or ``scripts/setup``'s link in ``~/.local/bin`` is on PATH), else the full
path of the venv's script. ``scripts/setup`` links ``fuzzfarm`` into ``$XDG_BIN_HOME`` or
``~/.local/bin``, as pipx and uv install tools.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys


def own_script(name: str) -> str:
    """This installation's ``name`` script: beside the running interpreter (the venv's bin/)."""
    return os.path.join(os.path.dirname(sys.executable), name)


def on_path(name: str) -> bool:
    """The shell's PATH finds this installation's ``name`` (directly or through a link)."""
    found = shutil.which(name)
    return bool(found) and os.path.realpath(found) == os.path.realpath(own_script(name))


def typed(name: str) -> str:
    """``name`` as the user types it here: bare when PATH finds this one, else its full path."""
    return name if on_path(name) or not os.path.exists(own_script(name)) else shlex.quote(own_script(name))


def typed_python() -> str:
    """This installation's interpreter as the user types it: ``python`` when the shell's PATH finds
    this very one (its venv is active), else its full path. Compared by directory, not realpath:
    a venv's ``python`` is a link to the base interpreter, which has no fuzzfarm."""
    found = shutil.which("python")
    here = os.path.dirname(os.path.abspath(sys.executable))
    return "python" if found and os.path.dirname(os.path.abspath(found)) == here else shlex.quote(sys.executable)


def bin_dir() -> str:
    """Where ``scripts/setup`` links ``fuzzfarm`` (pipx's and uv's place for tools)."""
    return os.environ.get("XDG_BIN_HOME") or os.path.join(os.path.expanduser("~"), ".local", "bin")


def path_advice() -> str | None:
    """One copy-pasteable line when this shell cannot run ``fuzzfarm`` as typed, else None."""
    if on_path("fuzzfarm"):
        return None
    link = os.path.join(bin_dir(), "fuzzfarm")
    if os.path.realpath(link) == os.path.realpath(own_script("fuzzfarm")):
        return (f"`fuzzfarm` is linked in {bin_dir()}, which is not on this shell's PATH; to type the commands "
                f"above, first run: export PATH=\"{bin_dir()}:$PATH\"")
    return (f"`fuzzfarm` on this shell's PATH is not this installation's; type {shlex.quote(own_script('fuzzfarm'))} "
            f"instead, or run scripts/setup to link it into {bin_dir()}")
