"""``fuzzfarm check-port``: check a harness's Go citations against Go source.

    fuzzfarm check-port checker                       # each port against its twin (gotwins/)
    fuzzfarm check-port checker --go-src ~/perf-tests # against a checkout of the upstream code

One line per mismatch (``file.go:LINE: what is wrong [port function at port.py:LINE]``) and
exit 1; on stderr, one progress line per Go source directory (twin) as its check starts; exit 0 with a one-line summary when every citation agrees; exit 2 for bad input (no
such harness or directory, no twin listed, Go missing). The checker is ``fuzzfarm.portcheck``.
"""

from __future__ import annotations

from typing import Optional

import typer

EXIT_MISMATCH = 1


def register(app) -> None:
    from fuzzfarm.cli._app import CLIError, err, errors_to_exit, out

    @app.command("check-port")
    @errors_to_exit
    def check_port(harness: str = typer.Argument(..., help="Registered harness name (see `fuzzfarm harnesses`)."),
                   go_src: Optional[str] = typer.Option(None, "--go-src", help="Go source to check against: a Go "
                                                        "twin or a checkout of the upstream code (default: each "
                                                        "port's twin listed in gotwins/TWINS.toml)."),
                   module: Optional[str] = typer.Option(None, "--module", help="Only the port modules under this "
                                                        "dotted name (e.g. fuzzfarm.examples.hc03_lock_order).")) -> None:
        """Check every go_func declaration and '# :N' site of the harness's ports against Go source:
        the file exists, the line lies inside the named function, the name matches. Exit 1 on a
        mismatch (one line each), 0 when all agree."""
        from fuzzfarm.portcheck import CheckPortError, check_port as run

        def progress(line: str) -> None:  # on stderr: stdout stays the mismatches and the summary
            err.print(line, markup=False)

        try:
            report = run(harness, go_src=go_src, module=module, progress=progress)
        except CheckPortError as e:
            raise CLIError(str(e)) from None
        for line in report.mismatches:
            out.print(line, markup=False)
        out.print(report.summary(), markup=False)
        if report.mismatches:
            raise typer.Exit(EXIT_MISMATCH)
