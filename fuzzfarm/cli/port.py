"""``fuzzfarm port GO_FILES_OR_DIR -o DIR [--test TestName]``: generate the gosim port of Go source
as a harness plugin package (fuzzfarm.goport; the supported subset is in docs/PORT.md). Anything
outside the subset, a file that does not parse or an unmapped import is one line each with
``file.go:line`` and what to do, exit 2, and nothing is written."""

from __future__ import annotations

import os
import shlex
from typing import List, Optional

import typer


def _fuzz_command(files: list[str]) -> str:
    """The generated harness run standalone under atheris, as docs/HARNESSES.md section 2 runs it:
    its module (``<name>_port.harness``) on the buggy build (``port`` when the Go has no ``fixed`` tag)."""
    harness = next(f for f in files if os.path.basename(f) == "harness.py")
    pkg = os.path.basename(os.path.dirname(harness))
    variant = "buggy" if any(os.path.basename(f) in ("buggy.py", "buggy") for f in files) or any(
        f"{os.sep}buggy{os.sep}" in f for f in files) else "port"
    return (f"mkdir -p crashes && FUZZFARM_VARIANT={variant} python -m {pkg}.harness -runs=20000 -seed=1 "
            "-artifact_prefix=crashes/")


def installed_elsewhere(output: str, name: str | None) -> str | None:
    """What the package would clash with once installed: the harness name registered by another
    package (`fuzzfarm harnesses`, explore and fuzz would go on running that one, and say
    nothing), or the distribution ``fuzzfarm-NAME`` (``pip install -e`` would replace it). None
    when free, or when it is this very package, installed from ``output`` (``pip install -e``
    records the directory, PEP 610) and being regenerated there."""
    import json
    import os
    from importlib import metadata
    from urllib.parse import unquote, urlparse

    from fuzzfarm.goport.package import harness_name
    from fuzzfarm.harness.registration import ENTRY_POINT_GROUP
    hname = harness_name(output, name)
    here = os.path.abspath(output)

    def elsewhere(dist) -> bool:
        try:
            url = urlparse(json.loads(dist.read_text("direct_url.json") or "{}").get("url", ""))
        except (OSError, ValueError, AttributeError):
            return True
        return not (url.scheme == "file" and os.path.abspath(unquote(url.path)) == here)

    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        if ep.name == hname and (ep.dist is None or elsewhere(ep.dist)):
            return f"a harness named {hname!r}"
    try:
        dist = metadata.distribution(f"fuzzfarm-{hname}")
    except metadata.PackageNotFoundError:
        return None
    return f"the package fuzzfarm-{hname}" if elsewhere(dist) else None


def register(app: typer.Typer) -> None:
    from fuzzfarm.cli._app import EXIT_ERROR, err, errors_to_exit, out

    @app.command()
    @errors_to_exit
    def port(sources: List[str] = typer.Argument(..., help="Go files or a package directory."),
             output: str = typer.Option(..., "-o", "--output", help="Directory of the package to write (absent or empty)."),
             test: Optional[str] = typer.Option(None, "--test", help="Go test to run as the harness's program, e.g. TestScenario."),
             name: Optional[str] = typer.Option(None, "--name", help="Harness name (default: the output directory's name)."),
             max_starvation: Optional[str] = typer.Option(
                 None, "--max-starvation", metavar="SECONDS|none|label",
                 help="The generated harness's own starvation bound (docs/timing.md), e.g. 0.0001 when the Go's "
                      "clock counts upstream seconds in milliseconds; default: the 0.1 s realism bound as a label.")) -> None:
        """Translate Go source into a gosim port inside a harness plugin package (docs/PORT.md)."""
        from fuzzfarm.goport.package import NOT_GIVEN, port as do_port
        from fuzzfarm.goport.translate import PortError
        from fuzzfarm.harness import parse_max_starvation
        bound = NOT_GIVEN
        if max_starvation is not None:
            try:
                bound = parse_max_starvation(max_starvation)
            except ValueError as e:
                err.print(f"fuzzfarm port: --max-starvation {e}; e.g. --max-starvation 0.0001", markup=False)
                raise SystemExit(EXIT_ERROR) from None
        stubs = {}
        try:
            taken = installed_elsewhere(output, name)
            if taken:
                raise PortError([f"{taken} is already installed from elsewhere; pass --name with another name "
                                 "(or regenerate into the directory it was installed from)"])
            files = do_port(sources, output, name=name, test=test, stubs_out=stubs, max_starvation=bound)
        except PortError as e:
            for line in e.lines:
                err.print(f"fuzzfarm port: {line}", markup=False)
            raise SystemExit(EXIT_ERROR) from None
        out.print(f"wrote {len(files)} files to {output}; next: "
                  + ("fill in the stubs below, then " if stubs else "") + f"pip install -e {shlex.quote(output)}"
                  + (f" && fuzzfarm harnesses; then fuzz it: {_fuzz_command(files)}" if test else ""), markup=False)
        for path, (stub_file, funcs) in sorted(stubs.items()):
            # one line per import with no model: the harness refuses to load until each is filled
            out.print(f'stub to fill in: {stub_file}: import "{path}" has no gosim model; '
                      f"it calls {', '.join(f'{path}.{f}' for f in funcs)}", markup=False)
