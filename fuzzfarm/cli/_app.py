"""What every ``fuzzfarm`` command shares: the Typer app, the consoles, one-line errors (exit 2),
the store of the configured Redis, and the parsing and checks of arguments said before any work.
The commands live in the modules beside this one; nothing here imports them."""

from __future__ import annotations

import functools
import json
import os
import re
import sys
from typing import Optional

import typer
from rich.console import Console

from fuzzfarm import harness as H


app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Fuzz ports of Go concurrency bugs on a Celery farm; download minimized, verified reproducers.")
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)
if not out.is_terminal and "COLUMNS" not in os.environ:
    out.width = 4000  # piped into a file or another program: full rows, never cut to 80 columns

EXIT_ERROR = 2
EXIT_FOUND = 1  # submit --wait / ci: the campaign found a bucket (ci: a new reproducible one)
ID_COLUMNS = ("name", "campaign", "bucket", "job")  # never wrapped: people copy them
# ``mix`` (the default): a portfolio reweighted by what finds new buckets (farm/portfolio.py);
# the others pin one strategy (``pct:D``: PCT of depth D; ``walk-mix``: only the walks of the mix).
STRATEGIES = ("mix", "bytes", "random", "pct", "walk-mix")
_state: dict = {"redis": None}


class CLIError(Exception):
    """One line for stderr, already saying what to do."""


def _fail(msg: str) -> "typer.Exit":
    from fuzzfarm.farm import redis_url
    text = str(msg).strip().splitlines()[0] if str(msg).strip() else "unknown error"
    if _state.get("redis"):
        text = redis_url.mask_text(text, _state["redis"])
    err.print(f"fuzzfarm: error: {text}", markup=False)
    return typer.Exit(EXIT_ERROR)


def errors_to_exit(fn):
    """Turn every expected error into one masked line on stderr and exit code 2."""
    @functools.wraps(fn)
    def wrapper(*a, **kw):
        import redis as redis_py

        from fuzzfarm.farm.embedded import LaunchError
        from fuzzfarm.farm.redis_url import RedisURLError
        from fuzzfarm.farm.store import StoreError
        from fuzzfarm.views import ViewError
        try:
            return fn(*a, **kw)
        except (CLIError, StoreError, ViewError, H.HarnessError, RedisURLError, LaunchError) as e:
            raise _fail(str(e)) from None
        except redis_py.exceptions.OutOfMemoryError:
            raise _fail("Redis is out of memory (maxmemory reached, it refuses writes); the command did not "
                        "complete; free memory with `fuzzfarm gc` / `fuzzfarm delete CAMPAIGN` or raise "
                        "Redis's maxmemory, then retry") from None
        except redis_py.RedisError as e:
            raise _fail(f"Redis error: {e}; check that Redis is up and --redis / $FUZZFARM_REDIS_URL") from None
        except Exception as e:  # artifact errors come from the collector
            if type(e).__name__ == "ArtifactError":
                raise _fail(str(e)) from None
            raise
    return wrapper


@app.callback()
def _main(redis: Optional[str] = typer.Option(
        None, "--redis", envvar="FUZZFARM_REDIS_URL", show_default=False, show_envvar=True,
        help="Redis URL (redis:// or rediss://, password in the URL; never printed).")) -> None:
    _state["redis"] = redis


def _url() -> str:
    from fuzzfarm.farm import local, redis_url
    try:
        return redis_url.from_env(_state.get("redis"), fallback=local.running_url)
    except redis_url.RedisURLError as e:
        raise CLIError(str(e)) from None


def _store(url: str | None = None):
    """A Store for the configured Redis, pinged (fails fast with a clear error)."""
    from fuzzfarm.farm import local, redis_url
    from fuzzfarm.farm.store import Store, StoreError
    st = Store(url or _url())
    try:
        st.ping()
    except StoreError:
        if url is None and not redis_url.is_configured(_state.get("redis")) and not local.running_url():
            raise CLIError(f"no farm to talk to: {which_farm()} is not running and no --redis or "
                           f"${redis_url.ENV} is given; start it with `fuzzfarm up`") from None
        raise
    return st


def _print_json(obj) -> None:
    sys.stdout.write(json.dumps(obj, indent=2, sort_keys=True, default=str) + "\n")


def parse_duration(text: str) -> float:
    """``90``, ``90s``, ``10m``, ``1h``, ``1h30m`` -> seconds (must be > 0)."""
    t = str(text).strip().lower()
    m = re.fullmatch(r"(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m)?(?:(\d+(?:\.\d+)?)s?)?", t)
    if not t or not m or not any(m.groups()):
        raise CLIError(f"--duration {text!r} is not a duration; use seconds or e.g. 30s, 10m, 1h")
    h, mi, s = (float(g) if g else 0.0 for g in m.groups())
    secs = h * 3600 + mi * 60 + s
    if secs <= 0:
        raise CLIError(f"--duration must be positive, got {text!r}")
    if not secs <= MAX_DURATION_S:  # also inf (400 digits) and nan
        raise CLIError(f"--duration {text!r} is longer than {MAX_DURATION_S // 86400:g} days; cancel or resubmit instead")
    return secs


MAX_DURATION_S = 365 * 86400.0


def check_output_dir(path: str, option: str = "-o") -> None:
    """``path`` can be a directory we write into (it need not exist yet): said before any work."""
    if not path.strip():
        raise CLIError(f"{option} {path!r} is not a directory name; give the directory to write into")
    if os.path.exists(path) and not os.path.isdir(path):
        raise CLIError(f"{option} {path!r} is a file, not a directory; choose another {option}")
    parent = os.path.dirname(os.path.abspath(path)) or "."
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent) or not os.access(parent, os.W_OK):
        raise CLIError(f"{option} {path!r} cannot be created here ({parent!r} is not a writable directory)")


def check_output_file(path: str | None, option: str) -> None:
    """``path`` can be written as a file (its directory exists and is writable): said before any work."""
    if path is None:
        return
    if not path or os.path.isdir(path):
        raise CLIError(f"{option} {path!r} is not a file name; give the file to write")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent) or not os.access(parent, os.W_OK):
        raise CLIError(f"{option} {path!r}: the directory {parent!r} does not exist or is not writable")


def check_timeout(timeout: float, *, zero_ok: bool = False) -> None:
    """``--timeout`` is a finite number of seconds, positive (or 0 where 0 means none)."""
    import math
    if not math.isfinite(timeout) or timeout < 0 or (timeout == 0 and not zero_ok):
        raise CLIError(f"--timeout must be a positive number of seconds{' (0: none)' if zero_ok else ''}, "
                       f"got {timeout:g}")



def which_farm() -> str:
    """The farm these commands use, in words: its name and whose it is."""
    from fuzzfarm.farm import local
    if os.environ.get(local.FARM_ENV):
        return f"farm {local.farm_name()!r} (named by ${local.FARM_ENV})"
    return f"farm {local.farm_name()!r} (this installation's: {sys.prefix})"


def _check_usage(jobs: int, strategy: str | None) -> None:
    """Usage errors, found before Redis is contacted."""
    if jobs < 1:
        raise CLIError(f"--jobs must be at least 1, got {jobs}")
    from fuzzfarm.engine import known_strategy
    if strategy is not None and strategy != "mix" and not known_strategy(strategy):
        raise CLIError(f"--strategy {strategy!r} is unknown; use one of {', '.join(STRATEGIES)}, pct:DEPTH or dfs")


def _check_harness(harness: str, variant: str, jobs: int, strategy: str):
    """The harness's registry entry; CLIError/HarnessError for bad usage, before any Redis."""
    from fuzzfarm.harness.target import resolve
    _check_usage(jobs, strategy)
    info = H.get(harness)
    bad_variant = resolve(harness).check_variant(variant)
    if bad_variant:
        raise CLIError(bad_variant)
    return info


def check_max_starvation(text: str | None):
    """``--max-starvation SECONDS|none`` as the campaign records it: seconds (float), ``"none"``,
    or None when not given (the workers' FUZZFARM_MAX_STARVATION_S or the default applies)."""
    if text is None:
        return None
    try:
        bound = H.parse_max_starvation(text)
    except ValueError as e:
        raise CLIError(f"--max-starvation {e}; e.g. --max-starvation 0.5") from None
    return "none" if bound is None else bound



def main(argv: list[str] | None = None) -> None:
    """The console script: Click's usage errors (a bad integer, an unknown option or command)
    become one line on stderr and exit 2, like every other bad argument."""
    try:  # typer >= 0.20 carries its own copy of Click; older ones use click itself
        from typer._click import exceptions as click_exc
    except ImportError:  # pragma: no cover
        from click import exceptions as click_exc
    try:
        rv = app(args=argv, prog_name="fuzzfarm", standalone_mode=False)
    except click_exc.NoArgsIsHelpError as e:
        out.print(e.ctx.get_help(), markup=False)
        raise SystemExit(EXIT_ERROR) from None
    except click_exc.UsageError as e:
        where = e.ctx.command_path if e.ctx is not None else "fuzzfarm"
        msg = " ".join(e.format_message().split()).rstrip(".")
        err.print(f"fuzzfarm: error: {msg}; see `{where} --help`", markup=False)
        raise SystemExit(EXIT_ERROR) from None
    except click_exc.ClickException as e:
        err.print(f"fuzzfarm: error: {' '.join(e.format_message().split())}", markup=False)
        raise SystemExit(EXIT_ERROR) from None
    except typer.Abort:
        err.print("fuzzfarm: interrupted", markup=False)
        raise SystemExit(130) from None
    raise SystemExit(rv if isinstance(rv, int) else 0)

