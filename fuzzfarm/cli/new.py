"""``fuzzfarm new NAME [-o DIR]``: scaffold an installable harness plugin package.

The package (templates in ``fuzzfarm/templates/plugin``) has a pyproject registering the harness
under the ``fuzzfarm.harnesses`` entry point, a port module with a small buggy/fixed race, the
harness declared with :func:`fuzzfarm.harness.declare`, and tests that find the buggy race and
keep the fixed variant clean. ``pip install -e DIR`` and ``fuzzfarm harnesses`` lists it.
"""

from __future__ import annotations

import os
import re
import string
from importlib import resources
from typing import Optional

import typer

NAME_RE = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
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
    if not NAME_RE.fullmatch(name or ""):
        raise ScaffoldError(f"harness name {name!r} is not valid; use lowercase letters, digits and dashes, "
                            f"starting with a letter (e.g. my-race)")
    from fuzzfarm import harness as H
    if name in H.registry():
        raise ScaffoldError(f"a harness named {name!r} is already installed; choose another name")
    if os.path.exists(out_dir) and (not os.path.isdir(out_dir) or os.listdir(out_dir)):
        raise ScaffoldError(f"{out_dir} exists and is not an empty directory; choose another with -o DIR")
    pkg = package_name(name)
    values = {"name": name, "pkg": pkg}
    templates = resources.files("fuzzfarm").joinpath("templates", "plugin")
    written = []
    for tmpl, rel in FILES.items():
        text = string.Template(templates.joinpath(tmpl).read_text(encoding="utf-8")).substitute(values)
        path = os.path.join(out_dir, rel.format(pkg=pkg))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        written.append(path)
    return written


def register(app: typer.Typer) -> None:
    from fuzzfarm.cli._app import CLIError, errors_to_exit, out

    @app.command()
    @errors_to_exit
    def new(name: str = typer.Argument(..., help="Harness name, e.g. my-race (lowercase, digits, dashes)."),
            output: Optional[str] = typer.Option(None, "-o", "--output", help="Directory (default ./NAME).")) -> None:
        """Scaffold a harness plugin package: port, harness, tests, pyproject entry point."""
        out_dir = output or name
        try:
            files = scaffold(name, out_dir)
        except ScaffoldError as e:
            raise CLIError(str(e)) from None
        env = f"{name}-env"  # a venv of its own: never fuzzfarm's (docs/HARNESSES.md, section 2)
        out.print(f"wrote {len(files)} files to {out_dir}; next: fuzzfarm venv {env} && source {env}/bin/activate "
                  f"&& pip install -e {out_dir} && fuzzfarm harnesses", markup=False)
