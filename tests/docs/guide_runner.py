"""Runs the code blocks of docs/HARNESSES.md, so the guide cannot rot.

Every fenced block carries a marker in its info string:

* ``sh`` - run, in document order, in one bash session (``set -euo pipefail``) in a work
  directory, in the shell a user has after ``scripts/setup`` (:func:`user_env`: ``fuzzfarm`` on
  ``PATH`` through a link to the test venv's, no venv active, no ``pip`` or ``python`` of the
  test venv); the guide makes and activates a venv of its own (``fuzzfarm venv``) before it
  installs anything; ``sh farm`` blocks need a farm (a redis-server) and run only when the caller
  provides its URL, exported as ``$FUZZFARM_REDIS_URL`` for those blocks alone: the blocks before
  them are what a user without a farm runs (``fuzzfarm demo`` on the local farm), and they must
  show what the guide shows with or without a farm further on;
* ``text expect`` - output of the ``sh`` block before it: each non-empty line must occur in that
  block's output (a line ``...`` is skipped);
* ``python|go|toml file=PATH`` - an excerpt of a file ``fuzzfarm new`` writes (PATH is
  relative to the scaffolded package directory): it must occur in that file verbatim, and the
  file itself is what the ``sh`` blocks run;
* ``python run`` - a script run with the venv's python in the work directory at that point;
* ``text`` - prose output shown for reading only; it must be marked ``text show``.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import textwrap
from dataclasses import dataclass

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GUIDE = os.path.join(REPO, "docs", "HARNESSES.md")
FENCE = re.compile(r"^```([A-Za-z]*)[ \t]*([^\n]*)\n(.*?)^```[ \t]*$", re.M | re.S)
MARKERS = {("sh", ""), ("sh", "farm"), ("text", "expect"), ("text", "show"), ("python", "run")}


@dataclass
class Block:
    lang: str
    marker: str
    text: str
    line: int

    @property
    def file(self) -> str | None:
        m = re.fullmatch(r"file=(\S+)", self.marker)
        return m.group(1) if m else None


def blocks(path: str = GUIDE) -> list[Block]:
    src = open(path, encoding="utf-8").read()
    out = []
    for m in FENCE.finditer(src):
        out.append(Block(m.group(1), m.group(2).strip(), m.group(3), src.count("\n", 0, m.start()) + 1))
    return out


def check_markers(bs: list[Block]) -> list[str]:
    """Sentences naming every block the runner would not execute or check."""
    bad = []
    for b in bs:
        if (b.lang, b.marker) in MARKERS or (b.lang in ("python", "go", "toml") and b.file):
            continue
        bad.append(f"docs/HARNESSES.md:{b.line}: ```{b.lang} {b.marker}``` is neither run nor checked")
    return bad


def purelib(bindir: str) -> str:
    """The site-packages directory of the venv whose bin/ is ``bindir``."""
    code = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    return subprocess.run([os.path.join(bindir, "python"), "-c", code], check=True, capture_output=True,
                          text=True).stdout.strip()


def layered_venv(path: str) -> str:
    """A virtualenv at ``path`` that sees the test venv's packages (editable fuzzfarm included) but
    installs into its own; ``fuzzfarm``, ``pip`` and ``python`` on its bin/: what ``fuzzfarm venv``
    makes (fuzzfarm/cli/venv.py). Returns its bin directory."""
    from fuzzfarm.cli.venv import make
    return make(path)


def user_env(root: str, **extra) -> dict:
    """The environment of a user's shell after ``scripts/setup``: ``fuzzfarm`` on PATH as a link
    to the test venv's (scripts/setup's ~/.local/bin link), then only the system's directories;
    no venv active. The local farm and caches live under ``root``."""
    bindir = os.path.join(root, "local-bin")
    os.makedirs(bindir, exist_ok=True)
    link = os.path.join(bindir, "fuzzfarm")
    if not os.path.lexists(link):
        os.symlink(os.path.join(os.path.dirname(sys.executable), "fuzzfarm"), link)
    env = venv_env(bindir, **extra)
    env.pop("VIRTUAL_ENV")
    env["PATH"] = f"{bindir}:/usr/bin:/bin"  # nothing else: a `pip` found here would install into the system
    return env


def venv_env(bindir: str, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("FUZZFARM_REDIS_URL", "PYTHONPATH", "VIRTUAL_ENV")}
    env.update(PATH=f"{bindir}:{env.get('PATH', '/usr/bin:/bin')}", VIRTUAL_ENV=os.path.dirname(bindir),
               # offline installs: nothing is downloaded at test time (setuptools and wheel come from the venv)
               PIP_NO_INDEX="1", PIP_NO_BUILD_ISOLATION="0", PIP_DISABLE_PIP_VERSION_CHECK="1",
               # the local farm the guide's demo starts lives here, never in the user's data dir
               XDG_DATA_HOME=os.path.join(os.path.dirname(bindir), "xdg-data"))
    env.update(extra)
    return env


def run_guide(workdir: str, env: dict, *, farm_url: str | None, timeout: float = 600,
              guide: str = GUIDE) -> list[tuple[Block, str]]:
    """Run the guide's ``sh`` (and ``python run``) blocks in one bash session; check ``text
    expect`` blocks and file excerpts. ``sh farm`` blocks run only with ``farm_url``, which is
    ``$FUZZFARM_REDIS_URL`` in those blocks and nowhere else. Returns ``[(block, its output)]``;
    raises AssertionError naming the block that failed."""
    assert "FUZZFARM_REDIS_URL" not in env, "the farm's URL is run_guide's farm_url: the guide sets it for section 9 only"
    bs = blocks(guide)
    doc = os.path.relpath(guide, REPO) if os.path.abspath(guide).startswith(REPO + os.sep) else guide
    bad = check_markers(bs)
    assert not bad, "\n".join(bad)
    script = ["set -euo pipefail", "exec 2>&1"]
    runnable = []
    for i, b in enumerate(bs):
        if b.lang == "sh" and b.marker == "":
            runnable.append(i)
            script += [f"echo '@@block {i}'", f"date +@@t%s.%N >&3", b.text]
        elif b.lang == "sh" and b.marker == "farm" and farm_url:
            runnable.append(i)  # the user of a farm has its URL in the environment from here on
            script += [f"echo '@@block {i}'", f"date +@@t%s.%N >&3", f"export FUZZFARM_REDIS_URL={shlex.quote(farm_url)}",
                       b.text, "unset FUZZFARM_REDIS_URL"]
        elif b.lang == "python" and b.marker == "run":
            runnable.append(i)
            py = os.path.join(workdir, f".guide-block-{i}.py")
            with open(py, "w") as f:
                f.write(b.text)
            script += [f"echo '@@block {i}'", f"date +@@t%s.%N >&3", f"python {py}"]
    script += ["date +@@t%s.%N >&3", "echo '@@end'"]
    times = os.path.join(workdir, ".guide-times")
    script.insert(2, f"exec 3>{shlex.quote(times)}")  # block start times, for the figures in the test output
    p = subprocess.run(["bash", "-c", "\n".join(script)], cwd=workdir, env=env, capture_output=True, text=True,
                       timeout=timeout)
    stamps = [float(x[3:]) for x in open(times).read().split()]
    durations = [round(b - a, 1) for a, b in zip(stamps, stamps[1:])]
    print("guide blocks (line: seconds):", ", ".join(f"{bs[i].line}: {d}" for i, d in zip(runnable, durations)))
    parts = re.split(r"^@@block (\d+)\n", p.stdout, flags=re.M)
    outputs = {int(parts[k]): parts[k + 1] for k in range(1, len(parts) - 1, 2)}
    if p.returncode != 0 or "@@end" not in p.stdout:
        last = max(outputs) if outputs else None
        where = f"{doc}:{bs[last].line}" if last is not None else "the first block"
        raise AssertionError(f"the guide's block at {where} failed (exit {p.returncode}):\n"
                             f"{textwrap.indent(bs[last].text if last is not None else '', '  ')}\n"
                             f"output tail:\n{p.stdout[-5000:]}")
    results = []
    for i, b in enumerate(bs):
        if i in outputs:
            results.append((b, outputs[i]))
        if b.lang == "text" and b.marker == "expect":
            commands = (("sh", ""), ("sh", "farm"), ("python", "run"))
            prev = max((j for j in range(i) if (bs[j].lang, bs[j].marker) in commands), default=None)
            assert prev is not None, f"{doc}:{b.line}: an expect block with no command before it"
            if prev not in outputs:  # a farm block, not run this time
                continue
            for line in b.text.splitlines():
                line = line.strip()
                if line and line != "...":
                    assert line in outputs[prev], (f"{doc}:{b.line}: expected {line!r} in the output "
                                                   f"of the block at line {bs[prev].line}; got:\n{outputs[prev][-3000:]}")
    return results


def check_excerpts(pkg_dir: str) -> int:
    """Every ``file=`` block occurs verbatim in the scaffolded file. Returns how many were checked."""
    n = 0
    for b in blocks():
        if b.file:
            path = os.path.join(pkg_dir, b.file)
            assert os.path.isfile(path), f"docs/HARNESSES.md:{b.line}: {b.file} is not a file fuzzfarm new writes"
            body = open(path, encoding="utf-8").read()
            assert b.text.strip("\n") in body, f"docs/HARNESSES.md:{b.line}: this excerpt is not in {b.file} as written"
            n += 1
    return n
