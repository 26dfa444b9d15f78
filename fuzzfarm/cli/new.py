"""``fuzzfarm new NAME [-o DIR]``: scaffold an installable harness plugin package.

The package (templates in ``fuzzfarm/templates/plugin``) has a pyproject registering the harness
under the ``fuzzfarm.harnesses`` entry point, a port module with a small buggy/fixed race, the
harness declared with :func:`fuzzfarm.harness.declare`, and tests that find the buggy race and
keep the fixed variant clean. ``pip install -e DIR`` and ``fuzzfarm harnesses`` lists it.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import string
from importlib import resources
from typing import Optional

import typer

NAME_RE = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
MAX_NAME = 64  # a harness name is a table column, a directory and a package name
# template file -> path in the new package ({pkg} is the Python package name)
FILES = {
    "pyproject.toml.tmpl": "pyproject.toml",
    "README.md.tmpl": "README.md",
    "__init__.py.tmpl": "{pkg}/__init__.py",
    "tracker.go.tmpl": "{pkg}/tracker.go",
    "port.py.tmpl": "{pkg}/port.py",
    "harness.py.tmpl": "{pkg}/harness.py",
    "test_harness.py.tmpl": "tests/test_{pkg}.py",
}


class ScaffoldError(Exception):
    """Bad name or target directory; ``str`` says what to do."""


def package_name(name: str) -> str:
    return name.replace("-", "_") + "_harness"


def scaffold(name: str, out_dir: str) -> list[str]:
    """Write the plugin package for harness ``name`` into ``out_dir`` (must be absent or empty).
    Returns the files written. Raises ScaffoldError."""
    if not NAME_RE.fullmatch(name or "") or len(name) > MAX_NAME:
        raise ScaffoldError(f"harness name {name[:80]!r}{'...' if len(name or '') > 80 else ''} is not valid; use at most "
                            f"{MAX_NAME} lowercase letters, digits and dashes, starting with a letter (e.g. my-race)")
    if not out_dir.strip():
        raise ScaffoldError(f"-o {out_dir!r} is not a directory name; give the directory to write the package into")
    from fuzzfarm import harness as H
    if name in H.registry():
        raise ScaffoldError(f"a harness named {name!r} is already installed; choose another name")
    if os.path.exists(out_dir) and (not os.path.isdir(out_dir) or os.listdir(out_dir)):
        raise ScaffoldError(f"{out_dir} exists and is not an empty directory; choose another with -o DIR")
    pkg = package_name(name)
    values = {"name": name, "pkg": pkg}
    templates = resources.files("fuzzfarm").joinpath("templates", "plugin")
    texts = {rel.format(pkg=pkg): string.Template(templates.joinpath(tmpl).read_text(encoding="utf-8")).substitute(values)
             for tmpl, rel in FILES.items()}
    written: list[str] = []
    made: list[str] = []  # directories created here, deepest last
    try:
        for rel, text in texts.items():
            path = os.path.join(out_dir, rel)
            d = os.path.dirname(path)
            missing = []
            while d and not os.path.isdir(d):
                missing.append(d)
                d = os.path.dirname(d)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            made.extend(reversed(missing))
            with open(path, "w", encoding="utf-8") as f:
                written.append(path)
                f.write(text)
    except OSError as e:  # a parent that is a file, a read-only place, a name too long
        for path in written:  # a half package would look like a broken one: leave nothing of it
            with contextlib.suppress(OSError):
                os.unlink(path)
        for d in reversed(made):
            with contextlib.suppress(OSError):
                os.rmdir(d)
        raise ScaffoldError(f"cannot write the package into {out_dir}: {e.strerror or e}; choose another -o DIR") from None
    return written


def register(app: typer.Typer) -> None:
    from fuzzfarm.cli._app import CLIError, errors_to_exit, out

    @app.command()
    @errors_to_exit
    def new(name: str = typer.Argument(..., help="Harness name, e.g. my-race (lowercase, digits, dashes)."),
            output: Optional[str] = typer.Option(None, "-o", "--output", help="Directory (default ./NAME).")) -> None:
        """Scaffold a harness plugin package: port, harness, tests, pyproject entry point."""
        out_dir = output if output is not None else name  # -o "" is refused, not ./NAME
        try:
            files = scaffold(name, out_dir)
        except ScaffoldError as e:
            raise CLIError(str(e)) from None
        from fuzzfarm.cli.path import typed
        env = f"{name}-env"  # a venv of its own: never fuzzfarm's (docs/HARNESSES.md, section 2)
        # runs as printed: this fuzzfarm by the path the shell finds it at, the directory quoted
        out.print(f"wrote {len(files)} files to {out_dir}; next: {typed('fuzzfarm')} venv {env} && source {env}/bin/activate "
                  f"&& pip install -e {shlex.quote(out_dir)} && fuzzfarm harnesses", markup=False)
