"""A standalone fuzz run (``python harness.py [libFuzzer flags]``, harness.atheris_main) keeps
stdout for the harness's own output: atheris's crash banner and traceback, which it writes with
C++ ``std::cout``, go to stderr with libFuzzer's crash report they belong to."""

from __future__ import annotations

import subprocess
import sys
import textwrap

HARNESS = textwrap.dedent('''
    import sys
    from fuzzfarm.harness import atheris_main

    def test_one_input(data):
        print("harness output")
        sys.stdout.flush()
        raise RuntimeError("boom from the harness")

    atheris_main(test_one_input, __file__, variants=None)
''')


def test_atheris_crash_banner_goes_to_stderr_and_stdout_keeps_the_harness_output(tmp_path):
    h = tmp_path / "boom.py"
    h.write_text(HARNESS)
    p = subprocess.run([sys.executable, str(h), "-runs=10", f"-artifact_prefix={tmp_path}/"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode != 0, p.stderr[-2000:]  # libFuzzer found the crash
    assert "Uncaught Python exception" not in p.stdout and "Traceback" not in p.stdout, p.stdout
    assert p.stdout.strip() == "harness output", p.stdout
    err = p.stderr
    assert "=== Uncaught Python exception: ===" in err and 'RuntimeError("boom from the harness")' in err, err[-3000:]
    assert err.index("Uncaught Python exception") < err.index("Test unit written to"), err[-3000:]
