"""Every bad argument is one line on stderr and exit 2, Click's own parse errors included; user
strings are never read as rich markup; the narrow tables fit 80 columns."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from rich.console import Console

from fuzzfarm.cli import tables as T


def cli(*args, env=None):
    e = {**os.environ, "FUZZFARM_REDIS_URL": "redis://127.0.0.1:1/0", **(env or {})}
    return subprocess.run([sys.executable, "-m", "fuzzfarm.cli", *args], capture_output=True, text=True, env=e,
                          timeout=120)


def cli_here(capsys, monkeypatch, *args):
    """The console script's ``main`` in this process (what ``python -m fuzzfarm.cli`` runs, less
    the interpreter's start-up, about a second a call): (exit code, stdout, stderr)."""
    from fuzzfarm import cli as C
    monkeypatch.setenv("FUZZFARM_REDIS_URL", "redis://127.0.0.1:1/0")
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        C.main(list(args))
    got = capsys.readouterr()
    return subprocess.CompletedProcess(args, e.value.code, got.out, got.err)


@pytest.mark.parametrize("args, needle", [
    (("submit", "checker", "--jobs", "abc"), "--jobs"),
    (("nosuch",), "No such command 'nosuch'"),
    (("status", "--bogus"), "No such option: --bogus"),
    (("submit",), "Missing argument"),
    (("ci", "checker", "--duration", "soon"), "--duration 'soon' is not a duration"),
    (("ci", "checker", "--baseline", "no/such/file.json"), "--baseline"),
    (("cancel",), "Missing argument"),
    (("up", "-c", "0"), "at least 1"),
    # found by a hostile session: each used to fail with a traceback, some after a whole run
    (("web", "--port", "99999"), "--port must be 1-65535"),
    (("ci", "checker", "--junit", "/nonexistent/dir/j.xml"), "--junit"),
    (("ci", "checker", "-o", "/proc/version"), "is a file, not a directory"),
    (("demo", "checker", "-o", "/proc/version"), "is a file, not a directory"),
    (("submit", "checker", "--duration", "9" * 400), "longer than 365 days"),
    (("submit", "checker", "--jobs", "0"), "--jobs must be at least 1"),
    (("submit", "checker", "--jobs", "-2"), "--jobs must be at least 1"),
    (("submit", "checker", "--duration", "0"), "--duration"),
    (("submit", "checker", "--duration", "-5"), "--duration"),
    (("submit", "checker", "--wait", "--timeout", "nan"), "--timeout must be"),
    (("demo", "--timeout", "-1"), "--timeout must be"),
    (("gc", "--older-than", "soon"), "--older-than"),
    (("--redis", "redis://:s3cr3t/PW@127.0.0.1:1/0", "status"), "127.0.0.1"),
    (("ci", "checker", "--strategy", "dfs"), "does not run --strategy dfs"),  # used to list dfs as a choice
])
def test_bad_arguments_are_one_line_and_exit_2(capsys, monkeypatch, args, needle):
    # in this process; test_the_console_script_says_bad_arguments_in_one_line_too runs the real command
    p = cli_here(capsys, monkeypatch, *args)
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    assert p.returncode == 2 and len(lines) == 1, p.stderr
    assert lines[0].startswith("fuzzfarm: error: ") and needle in lines[0], lines[0]
    assert "╭" not in p.stderr and "Traceback" not in p.stderr
    assert "s3cr3t" not in p.stderr + p.stdout


@pytest.mark.parametrize("args, needle", [(("submit", "checker", "--jobs", "abc"), "--jobs"),
                                          (("--redis", "redis://:s3cr3t/PW@127.0.0.1:1/0", "status"), "127.0.0.1")])
def test_the_console_script_says_bad_arguments_in_one_line_too(args, needle):
    p = cli(*args)
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    assert p.returncode == 2 and len(lines) == 1, p.stderr
    assert lines[0].startswith("fuzzfarm: error: ") and needle in lines[0], lines[0]
    assert "Traceback" not in p.stderr and "s3cr3t" not in p.stderr + p.stdout


ROWS = [{"id": "b" + "0123456789ab", "group": None, "kind": "concurrent map iteration and map write",
         "crash_type": "concurrent map iteration and map write", "state": "done", "count": 12345,
         "crash_state": ["cache.default_opts", "map[string]int", "BuildClusters.func1", "BuildClusters"],
         "verify_ok": 10, "verify_n": 10, "fixed": False, "fix_keeps": True, "original_size": 900,
         "minimized_size": 12, "preemptions_before": 9, "preemptions_after": 1}] * 3


def _render(renderable, width: int) -> str:
    c = Console(width=width, record=True, file=open(os.devnull, "w"), highlight=False)
    c.print(renderable, soft_wrap=False)
    return c.export_text()


def test_the_narrow_bucket_table_fits_80_columns_and_keeps_brackets():
    text = _render(T.bucket_table(ROWS, "buckets", wide=T.is_wide(80)), 80)
    assert max(len(line) for line in text.splitlines()) <= 80, text
    assert "map[string]int" in text and "kept (hazard)" in text and "10/10" in text
    assert "b0123456789ab" in text  # ids are never cut


def test_the_wide_bucket_table_keeps_every_column_on_one_row():
    text = _render(T.bucket_table(ROWS[:1], "buckets", wide=True), 400)
    row = next(line for line in text.splitlines() if "b0123456789ab" in line)
    assert "cache.default_opts < map[string]int" in row and "900→12" in row and "9→1" in row


def test_campaign_table_fits_80_columns():
    rows = [{"id": "c12011748a1ea31", "harness": "cluster-builder", "variant": "library-fixed", "strategy": "bytes",
             "phase": "running", "jobs_done": 3, "jobs": 8, "execs": 123456789, "fuzz_exec_per_s": 12345.6,
             "corpus_size": 1234, "crashes": 99, "buckets": 7, "first_reproducer_s": 3.1}]
    text = _render(T.campaign_rows_table(rows, wide=False), 80)
    assert max(len(line) for line in text.splitlines()) <= 80, text
    assert "12,346" in text and "1234" in text and "c12011748a1ea31" in text


def test_up_says_a_bad_starvation_setting_itself(capsys, monkeypatch, tmp_path):
    """Not "the local farm did not start; see supervisor.log" with the reason in a worker's log."""
    monkeypatch.setenv("FUZZFARM_MAX_STARVATION_S", "abc")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    p = cli_here(capsys, monkeypatch, "up")
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    assert p.returncode == 2 and len(lines) == 1 and "FUZZFARM_MAX_STARVATION_S" in lines[0], p.stderr
    assert not list(tmp_path.rglob("supervisor.log"))  # nothing was started
