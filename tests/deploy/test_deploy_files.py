"""deploy/ against the real package: no Docker engine runs here, so every file is parsed (YAML
with PyYAML, the Dockerfile line by line, systemd units with configparser, the README's shell
lines) and each command, module path, queue, CLI subcommand, option and environment variable it
names is checked to exist in fuzzfarm (or in Celery / the Python it runs on)."""

from __future__ import annotations

import configparser
import importlib
import json
import os
import re
import shlex

import pytest
import typer
import yaml

from fuzzfarm.farm import config, redis_url

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# FUZZFARM_DEPLOY_DIR: check a copy of deploy/ instead (used to mutation-test these checks)
DEPLOY = os.environ.get("FUZZFARM_DEPLOY_DIR") or os.path.join(REPO, "deploy")

# Every file in deploy/ must be one of these (a new file needs a parser and checks here).
KNOWN_FILES = {
    "Dockerfile", "docker-compose.yml", "README.md",
    "k8s/redis.yaml", "k8s/secret.yaml", "k8s/worker.yaml", "k8s/collector.yaml",
    "systemd/fuzzfarm-worker@.service", "systemd/fuzzfarm-collector.service", "systemd/env.example",
    "ci/github-actions.yml", "ci/gitlab-ci.yml",  # checked by tests/deploy/test_ci_workflows.py
}

# Environment variables deploy files may set that fuzzfarm does not read itself, with who does.
FOREIGN_ENV = {
    "REMAP_SIGTERM": "billiard/Celery: SIGTERM does a cold shutdown (docs/TRAPS.md#g16)",
    "PYTHONUNBUFFERED": "CPython",
    "PYTHONHASHSEED": "CPython (fuzzfarm pins it for harness processes anyway)",
    "PIP_NO_CACHE_DIR": "pip, at image build time",
    "REDIS_PASSWORD": "the k8s Redis container's own --requirepass $(REDIS_PASSWORD)",
}


def _read(rel: str) -> str:
    with open(os.path.join(DEPLOY, rel), encoding="utf-8") as f:
        return f.read()


def _yaml_docs(rel: str) -> list[dict]:
    return [d for d in yaml.safe_load_all(_read(rel)) if d is not None]


def fuzzfarm_env_vars() -> set[str]:
    """Every ``FUZZFARM_*`` name that appears as a string in the package's source."""
    names = set()
    for dirpath, _, files in os.walk(os.path.join(REPO, "fuzzfarm")):
        for fn in files:
            if fn.endswith(".py"):
                with open(os.path.join(dirpath, fn), encoding="utf-8") as f:
                    names |= set(re.findall(r"[\"'](FUZZFARM_[A-Z0-9_]+)[\"']", f.read()))
    return names


def check_env_name(name: str, where: str) -> None:
    if name.startswith("FUZZFARM_"):
        assert name in fuzzfarm_env_vars(), f"{where}: ${name} is read nowhere in fuzzfarm"
    else:
        assert name in FOREIGN_ENV, f"{where}: ${name} is neither fuzzfarm's nor a known tool's variable"


def check_env_value(name: str, value: str, where: str) -> None:
    check_env_name(name, where)
    if name == redis_url.ENV:
        redis_url.validate(value)  # raises on a bad scheme / port
    if name == "REMAP_SIGTERM":
        assert value == "SIGQUIT", f"{where}: REMAP_SIGTERM={value} (must be SIGQUIT: unfinished jobs go back, docs/TRAPS.md#g16)"


# ---- commands ----------------------------------------------------------------------------------
def _click_opts(cmd) -> dict:
    """Option string -> parameter of a click command (Celery's click, or typer's vendored one)."""
    return {o: p for p in cmd.params if p.param_type_name == "option" for o in (*p.opts, *p.secondary_opts)}


def _parse_opts(args: list[str], opts: dict, where: str) -> tuple[dict, list[str]]:
    """Options (name -> list of values) and positional arguments of ``args`` for ``opts``."""
    got: dict[str, list[str]] = {}
    pos = []
    i = 0
    while i < len(args):
        a = args[i]
        if a.startswith("-") and a != "-":
            key, eq, val = a.partition("=")
            assert key in opts, f"{where}: unknown option {key!r}"
            p = opts[key]
            name = p.name
            if p.is_flag or p.count:
                got.setdefault(name, []).append("1")
            else:
                if not eq:
                    i += 1
                    assert i < len(args), f"{where}: option {key} needs a value"
                    val = args[i]
                try:
                    p.type.convert(val, p, None)
                except Exception as e:  # click.BadParameter of either click
                    raise AssertionError(f"{where}: {key} {val!r}: {e}") from None
                got.setdefault(name, []).append(val)
        else:
            pos.append(a)
        i += 1
    return got, pos


def check_celery_command(argv: list[str], where: str) -> list[str]:
    """A ``celery -A fuzzfarm.farm worker ...`` command line: app module, subcommand, every
    option known to Celery 5.7's CLI with a valid value, queues the farm has. Returns the queues."""
    from celery.bin.celery import celery as celery_cmd
    from celery.bin.worker import worker as worker_cmd

    assert os.path.basename(argv[0]) == "celery", f"{where}: runs {argv[0]!r}, not celery"
    rest = argv[1:]
    assert "worker" in rest, f"{where}: not a `celery worker` command"
    i = rest.index("worker")
    glob, pos = _parse_opts(rest[:i], _click_opts(celery_cmd), where)
    assert not pos, f"{where}: stray arguments {pos}"
    assert glob.get("app") == ["fuzzfarm.farm"], f"{where}: -A must be fuzzfarm.farm, got {glob.get('app')}"
    mod = importlib.import_module("fuzzfarm.farm")
    assert type(mod.app).__name__ == "Celery"
    assert "worker" in celery_cmd.commands
    wopts, wpos = _parse_opts(rest[i + 1:], _click_opts(worker_cmd), where)
    assert not wpos, f"{where}: stray worker arguments {wpos}"
    queues = [q for v in wopts.get("queues", []) for q in v.split(",")]
    assert queues, f"{where}: a farm worker must name its queue(s) with -Q"
    for q in queues:
        assert q in config.QUEUES, f"{where}: queue {q!r} is not one of the farm's {config.QUEUES}"
    for c in wopts.get("concurrency", []):
        assert c.isdigit() and int(c) >= 1, f"{where}: --concurrency {c!r} is not a positive integer"
    for name in ("without_mingle", "without_gossip"):
        assert name in wopts, f"{where}: add --{name.replace('_', '-')} (docs/TRAPS.md#g17)"
    from fuzzfarm.farm.embedded import HEARTBEAT_INTERVAL_S
    assert wopts.get("heartbeat_interval") == [str(HEARTBEAT_INTERVAL_S)], (
        f"{where}: add --heartbeat-interval {HEARTBEAT_INTERVAL_S} (what `fuzzfarm worker` runs; "
        "docs/OPERATIONS.md \"Redis traffic\")")
    return queues


def check_fuzzfarm_command(argv: list[str], where: str) -> None:
    """A ``fuzzfarm SUBCOMMAND ...`` line, parsed by the real CLI's own parser (typer/click):
    the subcommand, its options and their values exist; ``submit`` names a registered harness."""
    from fuzzfarm import cli
    from fuzzfarm import harness as H

    group = typer.main.get_command(cli.app)
    assert os.path.basename(argv[0]) == "fuzzfarm"
    try:
        ctx = group.make_context("fuzzfarm", list(argv[1:]), resilient_parsing=False)
        protected = getattr(ctx, "_protected_args", None) or getattr(ctx, "protected_args", [])
        name, sub, rest = group.resolve_command(ctx, list(protected) + list(ctx.args))
        subctx = sub.make_context(name, rest, parent=ctx)
    except Exception as e:  # click's UsageError / BadParameter (typer's vendored click)
        raise AssertionError(f"{where}: the fuzzfarm CLI rejects it: {e}") from None
    if name == "submit":
        assert subctx.params["harness"] in H.registry(), f"{where}: harness is not registered"


def check_command(argv: list[str], where: str) -> None:
    prog = os.path.basename(argv[0])
    if prog == "celery":
        check_celery_command(argv, where)
    elif prog == "fuzzfarm":
        check_fuzzfarm_command(argv, where)
    elif prog == "redis-server":
        assert "--appendonly" in argv and argv[argv.index("--appendonly") + 1] == "yes", \
            f"{where}: Redis must run with --appendonly yes (AOF)"
    else:
        raise AssertionError(f"{where}: unexpected program {argv[0]!r}")


# ---- the tests ----------------------------------------------------------------------------------
def test_every_deploy_file_is_known_and_parsed():
    found = set()
    for dirpath, _, files in os.walk(DEPLOY):
        for fn in files:
            found.add(os.path.relpath(os.path.join(dirpath, fn), DEPLOY))
    assert found == KNOWN_FILES, f"new or missing deploy files: {found ^ KNOWN_FILES} (add parsing and checks here)"


def dockerfile() -> list[tuple[str, str]]:
    """(instruction, arguments) per logical line (continuations joined, comments dropped)."""
    out, buf = [], ""
    for raw in _read("Dockerfile").splitlines():
        line = raw.strip()
        if not buf and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            buf += line[:-1] + " "
            continue
        buf += line
        ins, _, rest = buf.partition(" ")
        out.append((ins.upper(), rest.strip()))
        buf = ""
    return out


def test_dockerfile():
    lines = dockerfile()
    ins = [i for i, _ in lines]
    assert set(ins) <= {"FROM", "ENV", "WORKDIR", "COPY", "RUN", "USER", "CMD", "ARG", "LABEL"}, ins
    frm = dict(lines)["FROM"]
    m = re.match(r"python:(\d+)\.(\d+)", frm)
    assert m and (int(m[1]), int(m[2])) == (3, 11), f"FROM {frm}: atheris 3.0.0 wheels need CPython 3.11"
    copied = []
    for i, a in lines:
        if i == "COPY":
            *srcs, _dst = shlex.split(a)
            for s in srcs:
                assert not s.startswith("--"), f"COPY flags not expected: {a}"
                assert s not in (".", "./", "tests", "tests/"), "the image must not copy the whole tree or tests/"
                assert os.path.exists(os.path.join(REPO, s)), f"COPY {s}: no such path in the build context (repo root)"
                copied.append(s.rstrip("/"))
        elif i == "ENV":
            for k, v in re.findall(r"(\w+)=(\S+)", a):
                check_env_value(k, v, f"Dockerfile ENV {k}")
        elif i == "RUN":
            assert "pip install ." in a, f"RUN {a!r}: expected the package install"
        elif i == "CMD":
            check_command(json.loads(a), "Dockerfile CMD")
    # what `pip install .` needs, and the registered harnesses' package
    for needed in ("pyproject.toml", "README.md", "fuzzfarm", "harnesses"):
        assert needed in copied, f"Dockerfile does not COPY {needed}"
    assert ins.index("USER") < ins.index("CMD"), "the worker must not run as root"


def _compose():
    (doc,) = _yaml_docs("docker-compose.yml")
    return doc


def _compose_command(svc: dict) -> list[str]:
    cmd = svc["command"]
    return shlex.split(cmd) if isinstance(cmd, str) else list(cmd)


def test_compose_services_commands_env():
    doc = _compose()
    svcs = doc["services"]
    assert {"redis", "worker", "collector"} <= set(svcs), sorted(svcs)
    # redis: AOF on a named volume mounted at /data
    redis = svcs["redis"]
    check_command(_compose_command(redis), "compose redis")
    vols = [v.split(":") for v in redis["volumes"]]
    assert any(dst == "/data" and src in (doc.get("volumes") or {}) for src, dst, *_ in vols), \
        "redis needs a named volume at /data (AOF survives the container)"
    roles = {}
    for name in ("worker", "collector"):
        svc = svcs[name]
        where = f"compose {name}"
        build = svc["build"]
        ctx = os.path.normpath(os.path.join(DEPLOY, build["context"]))
        assert ctx == os.path.dirname(DEPLOY), f"{where}: build context must be the repository root"
        assert os.path.isfile(os.path.join(ctx, build["dockerfile"])), f"{where}: no {build['dockerfile']}"
        roles[name] = check_celery_command(_compose_command(svc), where)
        env = svc["environment"]
        env = dict(e.split("=", 1) for e in env) if isinstance(env, list) else env
        for k, v in env.items():
            check_env_value(k, str(v), f"{where} environment")
        url = env[redis_url.ENV]
        from urllib.parse import urlsplit
        assert urlsplit(url).hostname == "redis", f"{where}: {redis_url.mask(url)} does not point at the redis service"
        assert "redis" in (svc.get("depends_on") or []), f"{where}: depends_on redis"
        assert env.get("REMAP_SIGTERM") == "SIGQUIT" or svc.get("stop_signal") == "SIGQUIT", \
            f"{where}: stop with SIGQUIT so running jobs are requeued at once (docs/TRAPS.md#g16)"
        assert svc.get("restart") in ("always", "unless-stopped", "on-failure"), \
            f"{where}: workers must be restarted when they exit (see docs/RELIABILITY.md)"
    assert roles == {"worker": ["fuzz"], "collector": ["collect"]}, roles
    # `--scale worker=N` needs no fixed container name and no published host port
    assert "container_name" not in svcs["worker"] and "ports" not in svcs["worker"]


def _k8s() -> dict[tuple[str, str], dict]:
    out = {}
    for rel in ("k8s/redis.yaml", "k8s/secret.yaml", "k8s/worker.yaml", "k8s/collector.yaml"):
        for d in _yaml_docs(rel):
            assert "apiVersion" in d and "kind" in d and d["metadata"].get("name"), f"{rel}: not a k8s object"
            out[(d["kind"], d["metadata"]["name"])] = d
    return out


def test_k8s_manifests():
    objs = _k8s()
    secret = objs[("Secret", "fuzzfarm-redis")]
    sdata = secret.get("stringData") or {}
    svc = objs[("Service", "fuzzfarm-redis")]
    sts = objs[("StatefulSet", "fuzzfarm-redis")]
    # Redis: AOF, a PVC mounted at /data, password from the Secret, reachable through the Service
    assert sts["spec"]["serviceName"] == svc["metadata"]["name"]
    pod = sts["spec"]["template"]
    assert svc["spec"]["selector"].items() <= pod["metadata"]["labels"].items()
    assert sts["spec"]["selector"]["matchLabels"].items() <= pod["metadata"]["labels"].items()
    (rc,) = pod["spec"]["containers"]
    args = rc.get("command", ["redis-server"]) + rc.get("args", [])
    if args[0] != "redis-server":
        args = ["redis-server"] + args
    check_command(args, "k8s redis")
    claims = {c["metadata"]["name"] for c in sts["spec"]["volumeClaimTemplates"]}
    assert any(m["mountPath"] == "/data" and m["name"] in claims for m in rc["volumeMounts"])
    env = {e["name"]: e for e in rc.get("env", [])}
    for ref in re.findall(r"\$\((\w+)\)", " ".join(args)):
        assert ref in env, f"k8s redis: $({ref}) is not defined in the container's env"
        check_env_name(ref, "k8s redis")
        key = env[ref]["valueFrom"]["secretKeyRef"]
        assert key["name"] == secret["metadata"]["name"] and key["key"] in sdata
    port = svc["spec"]["ports"][0]["port"]
    # the URL in the Secret: valid, points at the Service, carries the same password
    from urllib.parse import urlsplit
    url = sdata[redis_url.ENV]
    redis_url.validate(url)
    u = urlsplit(url)
    assert (u.hostname, u.port or 6379) == (svc["metadata"]["name"], port)
    assert u.password == sdata["password"], "the URL's password and the Redis password differ"
    # worker and collector Deployments
    roles = {}
    for name in ("fuzzfarm-worker", "fuzzfarm-collector"):
        dep = objs[("Deployment", name)]
        tmpl = dep["spec"]["template"]
        assert dep["spec"]["selector"]["matchLabels"].items() <= tmpl["metadata"]["labels"].items()
        (c,) = tmpl["spec"]["containers"]
        roles[name] = check_celery_command(list(c["command"]) + list(c.get("args", [])), f"k8s {name}")
        env = {e["name"]: e for e in c["env"]}
        for k, e in env.items():
            check_env_value(k, e.get("value", "") if "value" in e else "SIGQUIT" if k == "REMAP_SIGTERM" else
                            sdata.get(e["valueFrom"]["secretKeyRef"]["key"], ""), f"k8s {name} env")
        ref = env[redis_url.ENV]["valueFrom"]["secretKeyRef"]
        assert ref["name"] == secret["metadata"]["name"] and ref["key"] in sdata, \
            f"k8s {name}: {redis_url.ENV} must come from the Secret"
        assert env.get("REMAP_SIGTERM", {}).get("value") == "SIGQUIT"
        assert tmpl["spec"].get("restartPolicy", "Always") == "Always", f"k8s {name}: workers must be restarted"
        limit = (c.get("resources") or {}).get("limits", {}).get("memory")
        if limit and "fuzz" in roles[name]:
            # every pool process may run one fuzzer up to -rss_limit_mb: the pod must hold them all
            from fuzzfarm.farm import jobs
            conc = int(c["command"][c["command"].index("--concurrency") + 1])
            units = {"Mi": 1, "Gi": 1024}
            mb = int(limit[:-2]) * units[limit[-2:]]
            assert conc * jobs.RSS_LIMIT_MB < mb, \
                f"k8s {name}: {conc} fuzzers x -rss_limit_mb {jobs.RSS_LIMIT_MB} do not fit the {limit} limit"
        assert tmpl["spec"].get("terminationGracePeriodSeconds", 30) > config.celery_config(url)[
            "worker_soft_shutdown_timeout"]
    assert roles == {"fuzzfarm-worker": ["fuzz"], "fuzzfarm-collector": ["collect"]}


class _MultiDict(dict):
    """configparser dict that keeps every value of a repeated key (systemd allows repeats)."""

    def __setitem__(self, key, value):
        if isinstance(value, list) and key in self:
            self[key].extend(value)
        else:
            super().__setitem__(key, value)


def systemd_unit(rel: str) -> dict[str, dict[str, list[str]]]:
    cp = configparser.RawConfigParser(strict=False, dict_type=_MultiDict, empty_lines_in_values=False,
                                      interpolation=None)
    cp.optionxform = str  # keys are case-sensitive
    cp.read_string(_read(rel))
    # after reading, configparser has joined the values of a repeated key with newlines
    return {s: {k: cp.get(s, k).split("\n") for k in cp.options(s)} for s in cp.sections()}


@pytest.mark.parametrize("unit,queue", [("systemd/fuzzfarm-worker@.service", "fuzz"),
                                        ("systemd/fuzzfarm-collector.service", "collect")])
def test_systemd_units(unit, queue):
    u = systemd_unit(unit)
    assert set(u) == {"Unit", "Service", "Install"}
    svc = u["Service"]
    where = f"{unit}"
    (exe,) = svc["ExecStart"]
    # systemd expands its specifiers before the command runs (%i instance, %H host name, %%)
    assert "%h" not in exe.replace("%%", ""), f"{where}: systemd turns %h into a home directory; use %H"
    argv = shlex.split(exe.replace("%i", "1").replace("%H", "host1").replace("%%", "%"))
    assert argv[0].startswith("/opt/fuzzfarm/venv/bin/"), f"{where}: ExecStart should use the venv in /opt/fuzzfarm/venv"
    # systemd expands %i / %H / %h itself; a template unit (name@.service) may use %i
    if "%i" in exe:
        assert unit.endswith("@.service"), f"{where}: %i in a non-template unit"
    assert check_celery_command(argv, where) == [queue]
    for env in svc.get("Environment", []):
        k, v = env.split("=", 1)
        check_env_value(k, v, where)
    (envfile,) = svc["EnvironmentFile"]
    assert envfile == "/etc/fuzzfarm/env"
    # SIGQUIT requeues running jobs (docs/TRAPS.md#g16); the whole control group is then removed
    # (docs/TRAPS.md#g14).
    # (control-group also SIGQUITs the pool processes and fuzzers: with REMAP_SIGTERM=SIGQUIT
    # they ignore it - measured: the job went back on the queue, slice 0, nothing lost.)
    assert svc["KillSignal"] == ["SIGQUIT"] and svc["KillMode"][0] in ("control-group", "mixed"), \
        f"{where}: use KillSignal=SIGQUIT with KillMode=control-group or mixed"
    assert "REMAP_SIGTERM=SIGQUIT" in svc.get("Environment", []), \
        f"{where}: REMAP_SIGTERM=SIGQUIT makes pool processes and fuzzers ignore the group's SIGQUIT"
    assert float(svc["TimeoutStopSec"][0]) > config.celery_config("redis://x:1/0")["worker_soft_shutdown_timeout"]
    assert svc["User"] == ["fuzzfarm"]
    assert svc["Restart"][0] in ("always", "on-failure"), f"{where}: workers must be restarted when they exit"
    assert u["Install"]["WantedBy"] == ["multi-user.target"]


def test_systemd_env_example():
    for line in _read("systemd/env.example").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            k, v = line.split("=", 1)
            check_env_value(k, v, "systemd/env.example")


def _readme_commands() -> list[list[str]]:
    text = _read("README.md")
    cmds = []
    for block in re.findall(r"```(?:bash|sh)?\n(.*?)```", text, re.S):
        for line in block.splitlines():
            line = line.split("#", 1)[0].strip()
            for part in re.split(r"\s*&&\s*", line):
                if part:
                    cmds.append(shlex.split(part))
    for inline in re.findall(r"`([^`\n]*fuzzfarm (?:submit|worker|status|crashes|download|replay)[^`\n]*)`", text):
        cmds.append(shlex.split(inline))
    return cmds


def test_readme_names_real_files_services_and_commands():
    text = _read("README.md")
    for rel in re.findall(r"`((?:k8s/|systemd/)?[\w@.-]+\.(?:yaml|yml|service|example)|Dockerfile)`", text):
        assert os.path.exists(os.path.join(DEPLOY, rel)) or os.path.exists(os.path.join(DEPLOY, "k8s", rel)) \
            or os.path.exists(os.path.join(DEPLOY, "systemd", rel)), f"deploy/README.md names {rel}: no such file"
    compose = _compose()["services"]
    objs = _k8s()
    seen = set()
    for argv in _readme_commands():
        env = {}
        while argv and re.match(r"^[A-Z_][A-Z0-9_]*=", argv[0]):
            k, v = argv.pop(0).split("=", 1)
            env[k] = v
        for k, v in env.items():
            check_env_name(k, "deploy/README.md")
            if k == redis_url.ENV and "..." not in v:
                redis_url.validate(v)
        if not argv:
            continue
        prog = argv[0]
        seen.add(prog)
        where = f"deploy/README.md: {' '.join(argv)}"
        if prog == "docker" and argv[1] == "compose":
            assert argv[argv.index("-f") + 1] == "deploy/docker-compose.yml"
            for a in argv:
                if a.startswith("worker=") or "=" in a and not a.startswith("-"):
                    svc = a.split("=", 1)[0]
                    assert svc in compose, f"{where}: no compose service {svc!r}"
        elif prog == "docker" and argv[1] == "build":
            assert os.path.isfile(os.path.join(REPO, argv[argv.index("-f") + 1]))
        elif prog == "kubectl":
            if "-f" in argv:
                assert os.path.isdir(os.path.join(REPO, argv[argv.index("-f") + 1]))
            for a in argv:
                if a.startswith("deployment/"):
                    assert ("Deployment", a.split("/", 1)[1]) in objs, f"{where}: no Deployment {a}"
        elif prog == "cp":
            for src in argv[1:-1]:
                import glob
                assert glob.glob(os.path.join(REPO, src)), f"{where}: {src} matches nothing"
        elif prog == "systemctl":
            for unit in argv[argv.index("--now") + 1:] if "--now" in argv else argv[2:]:
                base = re.sub(r"@[^.]+$", "@", unit)
                fn = base + ".service" if not base.endswith(".service") else base
                assert os.path.isfile(os.path.join(DEPLOY, "systemd", fn)), f"{where}: no unit file {fn}"
        else:
            check_command(argv, where)
    assert {"docker", "kubectl", "systemctl", "fuzzfarm"} <= seen, seen
