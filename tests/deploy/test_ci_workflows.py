"""deploy/ci/: the GitHub Actions workflow and the GitLab CI job that run ``fuzzfarm ci``.

Both are valid YAML of their format's shape; every ``fuzzfarm`` command in them is parsed by
the real CLI's parser (subcommand, options, values, registered harness); the files they hand
to other steps are the ones ``fuzzfarm ci`` writes; scripts they run exist."""

from __future__ import annotations

import os
import shlex

import yaml

from fuzzfarm import harness as H
from test_deploy_files import DEPLOY, REPO, check_fuzzfarm_command


def _load(rel: str) -> dict:
    with open(os.path.join(DEPLOY, rel), encoding="utf-8") as f:
        doc = yaml.safe_load(f)
    assert isinstance(doc, dict), f"deploy/{rel}: not a YAML mapping"
    return doc


def _commands(lines: list[str], where: str) -> list[list[str]]:
    """The ``fuzzfarm ...`` command lines of shell steps; other programs must be ones we know."""
    found = []
    for line in lines:
        lex = shlex.shlex(line, posix=True, punctuation_chars=True)
        lex.whitespace_split = True
        parts, cur = [], []
        for tok in lex:
            if tok in ("&&", "||", ";", "|", "{", "}", ">", "<"):
                parts.append(cur)
                cur = [] if tok not in (">", "<") else ["(redirect)"]
            else:
                cur.append(tok)
        parts.append(cur)
        for argv in parts:
            if not argv or argv[0] == "(redirect)":
                continue
            prog = os.path.basename(argv[0])
            if prog == "fuzzfarm":
                found.append(argv)
            elif argv[0].startswith("scripts/"):
                assert os.access(os.path.join(REPO, argv[0]), os.X_OK), f"{where}: {argv[0]} is not an executable script"
    return found


def _check_ci_command(argv: list[str], where: str) -> dict:
    check_fuzzfarm_command(argv, where)
    assert argv[1] == "ci", f"{where}: expected `fuzzfarm ci`, got {argv[1]!r}"
    assert argv[2] in H.registry(), f"{where}: harness {argv[2]!r} is not registered"
    opts = {a: argv[i + 1] for i, a in enumerate(argv) if a.startswith("--") and i + 1 < len(argv)}
    for need in ("--baseline", "--junit", "--sarif"):
        assert need in opts, f"{where}: `fuzzfarm ci` without {need}"
    return opts


def test_github_actions_workflow_runs_fuzzfarm_ci():
    doc = _load("ci/github-actions.yml")
    assert doc["name"] and "pull_request" in doc[True], "the workflow must run on pull requests"  # `on:` is YAML true
    (job,) = doc["jobs"].values()
    steps = job["steps"]
    assert all("uses" in s or "run" in s for s in steps)
    runs = [s["run"] for s in steps if "run" in s]
    cmds = [c for r in runs for c in _commands(r.splitlines(), "deploy/ci/github-actions.yml")]
    (ci,) = [c for c in cmds if c[1] == "ci"]
    opts = _check_ci_command(ci, "deploy/ci/github-actions.yml")
    uses = {s["uses"].split("@")[0]: s for s in steps if "uses" in s}
    assert uses["github/codeql-action/upload-sarif"]["with"]["sarif_file"] == opts["--sarif"]
    uploaded = uses["actions/upload-artifact"]["with"]["path"].split()
    assert opts["--junit"] in uploaded and "fuzzfarm-ci/" in uploaded  # the reproducers (ci's default -o)
    # the baseline saved on main is the ci.json that `fuzzfarm ci` writes, restored where --baseline reads it
    assert any("fuzzfarm-ci/ci.json" in r and opts["--baseline"] in r for r in runs)
    assert os.path.dirname(opts["--baseline"]) == uses["actions/cache/restore"]["with"]["path"]


def test_gitlab_ci_job_runs_fuzzfarm_ci():
    doc = _load("ci/gitlab-ci.yml")
    (job,) = doc.values()
    cmds = _commands(job["script"], "deploy/ci/gitlab-ci.yml")
    (ci,) = [c for c in cmds if c[1] == "ci"]
    opts = _check_ci_command(ci, "deploy/ci/gitlab-ci.yml")
    assert job["artifacts"]["reports"]["junit"] == opts["--junit"] and job["artifacts"]["when"] == "always"
    assert os.path.dirname(opts["--baseline"]) + "/" in job["cache"]["paths"]
    assert any("fuzzfarm-ci/ci.json" in line and opts["--baseline"] in line for line in job["after_script"])
