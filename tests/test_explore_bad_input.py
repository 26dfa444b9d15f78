"""Bad input to `fuzzfarm explore` and to a standalone harness run: one line saying what happened
and what to do, exit 2, said before the search, and nothing lost (no reproducer overwritten, no
`.tmp` left, a counterexample found is kept). The printed replay command runs as printed."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys

import pytest

from fuzzfarm.engine import explore as E
from tests.test_bad_input_leftovers import one_line  # exit 2, one "fuzzfarm: error:" line

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV_BIN = os.path.dirname(os.path.abspath(sys.executable))
BARE_PATH = os.pathsep.join(d for d in os.environ.get("PATH", "/usr/bin:/bin").split(os.pathsep)
                            if d and os.path.abspath(d) != VENV_BIN) or "/usr/bin:/bin"


def run(*args: str, cwd, env: dict | None = None, url: str | None = None):
    """``fuzzfarm ARGS`` in this process (the console script's app); (exit code, stdout, stderr)."""
    from typer.testing import CliRunner

    from fuzzfarm import cli
    here = os.getcwd()
    os.chdir(cwd)
    try:
        r = CliRunner().invoke(cli.app, list(args), env={**(env or {}), **({"FUZZFARM_REDIS_URL": url} if url else {})},
                               catch_exceptions=False)
    finally:
        os.chdir(here)
    return r.exit_code, r.stdout, r.stderr


def leftovers(d) -> list[str]:
    return sorted(n for n in os.listdir(d) if ".tmp" in n)


# checker/buggy: a counterexample within a few runs of the empty input's scenario (in-process, < 1 s)
EXPLORE = ("explore", "checker", "--variant", "buggy", "--max-schedules", "200")


def test_an_unwritable_output_is_said_before_the_search_and_leaves_no_tmp(tmp_path):
    (tmp_path / "afile").write_bytes(b"mine")
    code, out, err = run(*EXPLORE, "-o", "afile/cx.bin", cwd=tmp_path)
    one_line(code, err, "-o 'afile/cx.bin' cannot be written", "not a writable directory")
    assert out == "" and leftovers(tmp_path) == []  # no search ran, nothing half-written
    assert (tmp_path / "afile").read_bytes() == b"mine"


def test_a_write_that_fails_after_the_search_keeps_the_counterexample_and_no_tmp(tmp_path):
    # the directory became a directory where the file should go (or went away) during the search
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "x").write_bytes(b"mine")
    for target in (tmp_path / "taken", tmp_path / "gone" / "cx.bin"):
        got = E.write_reproducer(str(target), b"\x01\x02")
        try:
            assert got != str(target) and open(got, "rb").read() == b"\x01\x02"
        finally:
            os.unlink(got)
        assert leftovers(tmp_path) == [] and leftovers(tmp_path / "taken") == []
    assert (tmp_path / "taken" / "x").read_bytes() == b"mine"
    # a file of the user's named like the temporary file is never written over
    (tmp_path / f"cx.bin.{os.getpid()}.tmp").write_bytes(b"user's")
    got = E.write_reproducer(str(tmp_path / "cx.bin"), b"\x03")
    try:
        assert (tmp_path / f"cx.bin.{os.getpid()}.tmp").read_bytes() == b"user's"
    finally:
        if got != str(tmp_path / "cx.bin"):
            os.unlink(got)
    assert E.write_reproducer(str(tmp_path / "ok.bin"), b"\x04") == str(tmp_path / "ok.bin")
    assert (tmp_path / "ok.bin").read_bytes() == b"\x04"


def test_an_existing_reproducer_is_refused_unless_forced(tmp_path):
    (tmp_path / "cx.bin").write_bytes(b"an earlier finding")
    code, out, err = run(*EXPLORE, "-o", "cx.bin", cwd=tmp_path)
    one_line(code, err, "-o cx.bin already exists", "choose another -o FILE, or pass --force to overwrite it")
    assert out == "" and (tmp_path / "cx.bin").read_bytes() == b"an earlier finding"
    # the default file too (a second explore of the same harness/variant)
    (tmp_path / "dfs-checker-buggy.bin").write_bytes(b"the first search's")
    code, out, err = run(*EXPLORE, cwd=tmp_path)
    one_line(code, err, "dfs-checker-buggy.bin already exists", "--force")
    assert (tmp_path / "dfs-checker-buggy.bin").read_bytes() == b"the first search's"
    code, out, err = run(*EXPLORE, "-o", "cx.bin", "--force", cwd=tmp_path)
    assert code == 1 and "reproducer written to cx.bin" in err, err
    assert (tmp_path / "cx.bin").read_bytes() != b"an earlier finding"
    (tmp_path / "empty.bin").write_bytes(b"")  # an empty file holds nothing to lose
    code, out, err = run(*EXPLORE, "-o", "empty.bin", cwd=tmp_path)
    assert code == 1 and (tmp_path / "empty.bin").stat().st_size > 0, err
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("args, needle", [
    (("--max-time", "nan"), "--max-time must be a finite number"),
    (("--max-time", "inf"), "--max-time must be a finite number"),
    (("--max-time", "-1"), "--max-time must be a finite number"),
    (("--max-schedules", "-1"), "--max-schedules must be a whole number >= 0"),
    (("--preemption-bound", "-1"), "--preemption-bound must be a whole number >= 0"),
    (("-o", ""), "-o '' is not a file name"),
    (("-o", "   "), "is not a file name"),
    (("-o", "."), "-o '.' is a directory"),
])
def test_absurd_values_are_one_line_before_the_search(tmp_path, args, needle):
    code, out, err = run("explore", "checker", "--variant", "buggy", *args, cwd=tmp_path)
    one_line(code, err, needle)
    assert out == "" and os.listdir(tmp_path) == []


def test_the_engine_refuses_nan_budgets_itself():
    from fuzzfarm import harness as H
    mod = H.get("checker").load()
    for kw in ({"max_time": float("nan")}, {"max_time": -1.0}, {"max_schedules": -3}, {"bound": -1}):
        with pytest.raises(E.ExploreError):
            E.explore(mod, "buggy", b"", **kw)


def test_the_printed_replay_command_runs_as_printed_outside_the_venv(tmp_path):
    # the user's shell: the venv not active, and nothing of the search's environment but what the
    # command itself says (the examples harness replays HC-09 only with FUZZFARM_EXAMPLE=hc09: this
    # reproducer's last byte would pick HC-01, which it does not fail)
    env = dict(os.environ, PATH=BARE_PATH, FUZZFARM_EXAMPLE="hc09")
    p = subprocess.run([sys.executable, "-m", "fuzzfarm.cli", "explore", "examples", "--variant", "buggy",
                        "-o", "cx.bin"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 1, p.stderr
    cmd = p.stderr.split("replay it with `", 1)[1].split("`", 1)[0]
    shell_env = {k: v for k, v in os.environ.items() if not k.startswith("FUZZFARM_EXAMPLE")}
    shell_env["PATH"] = BARE_PATH
    r = subprocess.run(["sh", "-c", cmd], cwd=tmp_path, env=shell_env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, (cmd, r.stderr)
    res = json.loads(r.stdout)
    assert res["failed"] and "HC-09" in res["scenario"], res["scenario"]


def test_typed_python_is_bare_only_where_the_shell_finds_this_venv(monkeypatch, tmp_path):
    from fuzzfarm.cli.path import typed_python
    monkeypatch.setenv("PATH", BARE_PATH)
    assert typed_python() == shlex.quote(sys.executable)
    # a `python` on PATH that is the base interpreter this venv links to: same realpath, no fuzzfarm
    (tmp_path / "python").symlink_to(os.path.realpath(sys.executable))
    monkeypatch.setenv("PATH", str(tmp_path) + os.pathsep + BARE_PATH)
    assert typed_python() == shlex.quote(sys.executable)
    monkeypatch.setenv("PATH", VENV_BIN + os.pathsep + BARE_PATH)
    assert typed_python() == "python"


# ---- a standalone harness run with a bad FUZZFARM_VARIANT -------------------------------------
@pytest.mark.parametrize("harness_file, setting, needle", [
    ("harnesses/checker_race.py", ("FUZZFARM_VARIANT", "nope"),
     "FUZZFARM_VARIANT='nope' is not a variant of this harness; choose one of buggy, fixed"),
    ("harnesses/examples_race.py", ("FUZZFARM_VARIANT", "nope"), "FUZZFARM_VARIANT='nope' is not a variant"),
    ("harnesses/checker_race.py", ("FUZZFARM_RACE", "maybe"), "FUZZFARM_RACE='maybe': choose on, off or auto"),
    ("harnesses/checker_race.py", ("FUZZFARM_MAX_STARVATION_S", "nan"), "FUZZFARM_MAX_STARVATION_S='nan' is not a finite"),
])
def test_a_bad_setting_in_a_standalone_run_is_one_line_exit_2_and_no_crash_file(tmp_path, harness_file, setting, needle):
    env = dict(os.environ, PYTHONHASHSEED="0")
    env[setting[0]] = setting[1]
    p = subprocess.run([sys.executable, os.path.join(ROOT, harness_file), "-runs=10", "-seed=1"], cwd=tmp_path,
                       env=env, capture_output=True, text=True, timeout=300)
    ours = [ln for ln in p.stderr.splitlines() if not ln.startswith("INFO: Instrumenting")]
    assert p.returncode == 2 and len(ours) == 1, (p.returncode, p.stderr[-2000:])
    assert needle in ours[0]
    assert os.listdir(tmp_path) == []  # no crash-* file: nothing was found


# ---- help texts: whole sentences, never broken mid-sentence -------------------------------------
def _help(*args: str) -> list[str]:
    """``fuzzfarm ARGS --help`` on an 80-column terminal (in this process: the console script's app)."""
    from typer.testing import CliRunner

    from fuzzfarm import cli
    r = CliRunner().invoke(cli.app, [*args, "--help"], env={"COLUMNS": "80"}, terminal_width=80)
    assert r.exit_code == 0, r.stderr
    return r.stdout.splitlines()


def _entries(lines: list[str]) -> list[tuple[str, list[str]]]:
    """The Commands panel as (command, [its description's lines])."""
    rows, inside = [], False
    for ln in lines:
        if ln.startswith("╭─ Commands"):
            inside = True
        elif ln.startswith("╰"):
            inside = False
        elif inside and ln.startswith("│"):
            body = ln.strip().strip("│").rstrip()
            if body[1:2].strip():  # a new command: "│ name   text"
                name, text = body.split(None, 1)
                rows.append((name, [text.strip()]))
            else:  # its description, continued: "│        text"
                rows[-1][1].append(body.strip())
    return rows


def _broken_lines(paragraph: list[str]) -> list[str]:
    """Lines ended before the terminal's width called for it (the next word would have fit)."""
    width = max(len(ln) for ln in paragraph)
    return [ln for ln, nxt in zip(paragraph, paragraph[1:]) if len(ln) + 1 + len(nxt.split()[0]) <= width]


def test_help_lists_each_command_with_a_whole_sentence():
    for args in ((), ("group",)):
        rows = _entries(_help(*args))
        assert len(rows) >= (15 if not args else 2)
        for name, text in rows:
            assert " ".join(text).endswith((".", ")")), (name, text)
            assert not _broken_lines(text), (name, text)
    for cmd in ("worker", "explore", "replay"):
        lines = _help(cmd)
        start = next(i for i, ln in enumerate(lines) if ln.strip().startswith("Usage:")) + 1
        end = next(i for i, ln in enumerate(lines) if ln.startswith("╭"))
        desc = [ln.strip() for ln in lines[start:end] if ln.strip()]
        assert desc and not _broken_lines(desc), (cmd, desc)


def test_a_hand_written_harness_main_checks_its_module_variants_before_fuzzing(monkeypatch, capsys):
    # atheris_main(TestOneInput, __file__) as a harness written without declare() calls it: the
    # variants are its module's VARIANTS; it exits before libFuzzer could run an input
    import types

    from fuzzfarm import harness as H
    mod = types.ModuleType("ff_handwritten")
    mod.VARIANTS = ("buggy", "fixed")
    exec("def TestOneInput(data):\n    raise AssertionError('no input may run')", mod.__dict__)
    monkeypatch.setitem(sys.modules, "ff_handwritten", mod)
    libfuzzer = types.ModuleType("atheris")  # stands for libFuzzer's start only: reached, the test fails

    def setup(*a, **kw):
        raise RuntimeError("libFuzzer would start with a bad variant")
    libfuzzer.Setup = setup
    monkeypatch.setitem(sys.modules, "atheris", libfuzzer)
    monkeypatch.setenv("FUZZFARM_VARIANT", "fixd")
    with pytest.raises(SystemExit) as e:
        H.atheris_main(mod.TestOneInput, __file__)
    assert e.value.code == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "fuzzfarm: FUZZFARM_VARIANT='fixd' is not a variant of this harness; choose one of buggy, fixed"]


# ---- found by the adversarial pass: "" taken as "the default", paths that crash, commands that do
# not run as printed ------------------------------------------------------------------------------
def _reproducer_dir(d, harness="checker", variant="buggy"):
    import hashlib
    d.mkdir()
    files = {"input.min": b"", "repro.json": json.dumps({"harness": harness, "variant": variant}).encode()}
    for n, b in files.items():
        (d / n).write_bytes(b)
    (d / "MANIFEST.json").write_text(json.dumps({"files": {n: hashlib.sha256(b).hexdigest() for n, b in files.items()}}))
    return d


def test_an_empty_variant_is_refused_never_read_as_the_default(tmp_path):
    code, out, err = run("explore", "checker", "--variant", "", cwd=tmp_path)
    one_line(code, err, "has no variant ''; choose one of buggy, fixed")
    assert out == "" and os.listdir(tmp_path) == []
    _reproducer_dir(tmp_path / "r")
    code, out, err = run("replay", "r", "-q", "--variant", "", cwd=tmp_path)
    one_line(code, err, "has no variant ''")
    assert out == ""
    code, out, err = run("replay", "", cwd=tmp_path)  # the empty name is shown, not an empty space
    one_line(code, err, "fuzzfarm: error: '' is not a directory")


def test_new_refuses_an_empty_or_unwritable_directory_and_prints_a_runnable_command(tmp_path):
    code, out, err = run("new", "my-race", "-o", "", cwd=tmp_path)
    one_line(code, err, "-o '' is not a directory name")
    assert os.listdir(tmp_path) == []  # not ./my-race instead
    (tmp_path / "afile").write_bytes(b"mine")
    code, out, err = run("new", "my-race", "-o", "afile/pkg", cwd=tmp_path)
    one_line(code, err, "cannot write the package into afile/pkg", "choose another -o DIR")
    assert os.listdir(tmp_path) == ["afile"] and (tmp_path / "afile").read_bytes() == b"mine"
    code, out, err = run("new", "a" * 65, cwd=tmp_path)
    one_line(code, err, "use at most 64 lowercase letters")
    code, out, err = run("new", "my-race", "-o", "my pkg", cwd=tmp_path)
    assert code == 0, err
    cmd = shlex.split(out.split("next: ", 1)[1])
    assert cmd[cmd.index("-e") + 1] == "my pkg" and (tmp_path / "my pkg" / "pyproject.toml").exists()


def test_download_refuses_an_empty_directory_name_and_quotes_what_it_prints(store, tmp_path):
    bid = "b0123456789ab"
    store.update_bucket(bid, id=bid, state="done", harness="checker", variant="buggy")
    store.put_artifact(bid, {"input.min": b"C", "repro.json": b'{"harness": "checker", "variant": "buggy"}', "MANIFEST.json": b"{}"})
    code, out, err = run("download", bid, "-o", "", cwd=tmp_path, url=store.url)
    one_line(code, err, "-o '' is not a directory name")
    assert os.listdir(tmp_path) == []  # not ./fuzzfarm-out/BUCKET instead
    if os.path.isdir("/proc/self"):  # a directory the checks call writable that cannot be made (root too)
        code, out, err = run("download", bid, "-o", "/proc/fuzzfarm-nope", cwd=tmp_path, url=store.url)
        one_line(code, err, "cannot write into /proc/fuzzfarm-nope", "choose another -o DIR")
    code, out, err = run("download", bid, "-o", "my repro", cwd=tmp_path, url=store.url)
    assert code == 0, err
    replay = shlex.split(out.split("replay with: ", 1)[1].split(";", 1)[0])
    assert replay[-2:] == ["replay", "my repro"]
    # the regression test through the interpreter that has fuzzfarm (a bare `pytest` on PATH may
    # be another venv's, without the harness: a newcomer's `fuzzfarm venv`)
    regression = shlex.split(out.split("regression test: ", 1)[1].strip())
    import shutil
    import sys
    assert regression[1:] == ["-m", "pytest", "my repro"], regression
    found = shutil.which(regression[0]) or regression[0]
    assert os.path.dirname(os.path.abspath(found)) == os.path.dirname(os.path.abspath(sys.executable)), regression


def test_an_input_over_the_limit_is_refused_unread(tmp_path):
    # /dev/zero (or a huge file) was read whole into memory before the search; an input over
    # MAX_INPUT_BYTES is refused after reading one byte past the limit
    from fuzzfarm.engine.model import MAX_INPUT_BYTES
    with open(tmp_path / "huge.in", "wb") as f:
        f.truncate(MAX_INPUT_BYTES + 1)
    code, out, err = run(*EXPLORE, "--input", "huge.in", "-o", "cx.bin", cwd=tmp_path)
    one_line(code, err, f"--input 'huge.in' holds more than {MAX_INPUT_BYTES} bytes")
    assert out == "" and not (tmp_path / "cx.bin").exists()
    code, out, err = run(*EXPLORE, "--input", ".", cwd=tmp_path)
    one_line(code, err, "cannot read --input '.'")


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="needs /dev/null")
def test_replay_refuses_a_device_under_a_reproducer_files_name(tmp_path):
    # a link to /dev/zero was read forever and a FIFO blocked; /dev/null stands for both here (the
    # manifest's sha256 of b"" even matches it), so that the test cannot hang without the check
    d = _reproducer_dir(tmp_path / "r")
    (d / "input.min").unlink()
    (d / "input.min").symlink_to("/dev/null")
    code, out, err = run("replay", "r", "-q", cwd=tmp_path)
    one_line(code, err, "input.min in r is not a regular file")
    assert out == ""
