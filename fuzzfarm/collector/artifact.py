"""The downloadable reproducer of a bucket: a flat directory of files plus a manifest.

Files: ``input.min`` (minimized input), ``input.orig`` (the input as found), ``trace.txt``
(rendered interleaving of the minimized input, with the crash dump), ``trace.json`` (the same
interleaving as data: events and goroutine legend; when the replay recorded it), ``failure.txt`` (crash
type, state, message, dump), ``repro.json`` (harness, variant, signature, fuzzfarm version,
harness source hash, replay command, ...) and ``MANIFEST.json`` (sha256 of every other file).

:func:`write_artifact` writes only plain file names inside the target directory, whatever the
names contain; :func:`load_artifact` checks every sha256 and names the file that is wrong.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
import os

from fuzzfarm.harness import bound_words, max_starvation_text, parse_max_starvation, starvation_need, starved_goroutines
from fuzzfarm.harness.signature import crash_type

MANIFEST = "MANIFEST.json"
REPRO = "repro.json"
FORMAT = 1
REQUIRED = ("input.min", REPRO)


class ArtifactError(Exception):
    """A reproducer directory is unusable (corrupt, tampered, incomplete). ``str`` names the
    file and says what to do."""


@dataclasses.dataclass
class Artifact:
    directory: str
    files: dict[str, bytes]  # every file listed in the manifest (verified) and the manifest
    repro: dict  # parsed repro.json

    @property
    def minimized(self) -> bytes:
        return self.files["input.min"]

    @property
    def original(self) -> bytes | None:
        return self.files.get("input.orig")


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def safe_name(name: str) -> str:
    """``name`` if it is a plain file name (no separators, not absolute, not ``.``/``..``, no
    NUL, at most 128 characters); raises ArtifactError otherwise."""
    if (not isinstance(name, str) or not name or name in (".", "..") or "/" in name or "\\" in name
            or "\0" in name or os.path.isabs(name) or name != os.path.basename(name) or len(name) > 128):
        raise ArtifactError(f"refusing artifact file name {name!r}: only plain file names are allowed")
    return name


def _text(value) -> bytes:
    return (value or "").encode("utf-8")


def reproducibility(bucket: dict) -> str:
    """``10/10``; ``7/10, depends on PYTHONHASHSEED`` when the verify replays (each under its
    own hash seed) failed under some seeds and passed under others, each seed again and again;
    or ``flaky (3/10)`` when the reproducer did not fail every time it ran otherwise."""
    n, ok = bucket.get("verify_n"), bucket.get("verify_ok")
    if n in (None, "") or not n:
        return "-"
    if bucket.get("hash_seed_dependent"):
        return f"{ok}/{n}, depends on PYTHONHASHSEED"
    return f"flaky ({ok}/{n})" if bucket.get("flaky") else f"{ok}/{n}"


def fix_record(bucket: dict) -> dict | None:
    """The fix verdict and its evidence as ``repro.json`` keeps it (reproducer bytes left out:
    they are ``fixed-fails.input``)."""
    ev = bucket.get("fix_evidence")
    if not ev:
        return None
    checks = [{k: v for k, v in c.items() if k != "reproducer_b64"} for c in ev.get("checks") or ()]
    return {**{k: v for k, v in ev.items() if k != "checks"}, "checks": checks,
            **({"context": bucket["verdict_context"]} if bucket.get("verdict_context") else {})}


def fix_text(bucket: dict) -> str:
    """The fix verdict block of ``failure.txt``."""
    ev = bucket.get("fix_evidence")
    if not ev:
        return ""
    lines = [f"fix check:   {ev.get('summary') or ev.get('verdict')} (variant {ev.get('variant')}, "
             f"{ev.get('schedules_tried', 0)} schedules tried)"]
    if bucket.get("verdict_context"):  # a verdict holds for the bound and harness it was decided under
        bound, h = str(bucket["verdict_context"]).split("|", 1)
        words = bound if bound in ("", "none") else _bound_text(parse_max_starvation(bound))
        lines.append(f"  decided under: starvation bound {words}, harness {h}")
    out = ev.get("outcome")
    if out and out.get("failed"):
        lines.append(f"  fixed run:  {out.get('crash_type') or out.get('kind')}: {out.get('message') or ''}")
        frames = out.get("go_crash_state") or out.get("crash_state") or []
        if out.get("kind") == "data race" or out.get("crash_state_shape") in ("race", "lock cycle"):
            lines.append(f"  between:    {' / '.join(frames)}")  # two sides, not a call chain
        else:
            lines.append(f"  at:         {' <- '.join(frames) or '(no project frames)'}")
    for c in ev.get("checks") or ():
        line = f"  - {c['name']}: {c.get('failed', 0)}/{c.get('runs', 0)} failed -> {c.get('verdict')}"
        if c.get("statement"):
            line += f"\n      {c['statement']}"
        lines.append(line)
    if ev.get("masked_bucket"):
        lines.append(f"  masked by the fix: the other failure is bucket {ev['masked_bucket']}")
    return "\n".join(lines) + "\n\n"


_UNKNOWN = object()


def _run_bound(outcome: dict, bucket: dict):
    """The starvation bound the reproducer ran under, as repro.json records it: seconds, or None
    for no bound in time. The replay's own (runone reports it), else the bucket's (the bound its
    triage ran under; a replay that timed out reports none); ``_UNKNOWN`` when neither says."""
    if "max_starvation_s" in outcome:
        return outcome["max_starvation_s"]
    b = bucket.get("max_starvation_s")
    if b in (None, ""):
        return _UNKNOWN
    return parse_max_starvation(b)


def _bound_text(bound) -> str:
    return "unknown" if bound is _UNKNOWN else bound_words(bound)


def recorded_max_starvation(repro: dict):
    """The bound to replay a reproducer under (``resolve(name, bound)`` takes it): the recorded
    seconds, ``"none"`` for a recorded null (no bound in time), or None when repro.json records
    none (an older reproducer: this machine's FUZZFARM_MAX_STARVATION_S or the default)."""
    if "max_starvation_s" not in repro:
        return None
    v = repro["max_starvation_s"]
    return "none" if v is None else v


def build_artifact(*, bucket: dict, original: bytes, minimized: bytes, outcome: dict, harness_hash: str,
                   version: str) -> dict[str, bytes]:
    """The files of a bucket's reproducer, ``MANIFEST.json`` included.

    ``outcome``: the classified replay of ``minimized`` with ``trace=True`` (``replay(...,
    trace=True)``); ``bucket``: the farm's bucket record (``id``, ``signature``, ``harness``,
    ``variant`` and whatever else it keeps; what is missing comes from ``outcome``)."""
    harness = bucket.get("harness") or outcome.get("harness")
    variant = bucket.get("variant") or outcome.get("variant")
    signature = bucket.get("signature") or outcome.get("signature")
    ctype = outcome.get("crash_type") or crash_type(outcome)
    repro = {
        "format": FORMAT,
        "bucket": bucket.get("id"),
        "harness": harness,
        "variant": variant,
        "signature": signature,
        "crash_type": ctype,
        "crash_state": outcome.get("crash_state") or [],
        "message": outcome.get("message"),
        "fuzzfarm_version": version,
        "harness_hash": harness_hash,
        "input": "input.min",
        "input_sha256": _sha256(minimized),
        "original_size": len(original),
        "minimized_size": len(minimized),
        "preemptions": outcome.get("preemptions"),
        "go_crash_state": outcome.get("go_crash_state") or [],
        # what its frames are: stack (innermost first), race (the two accesses) or lock cycle
        "crash_state_shape": outcome.get("crash_state_shape") or bucket.get("crash_state_shape") or "stack",
        "starvation_s": outcome.get("starvation"),
        "starved": starved_goroutines(outcome),  # [[gid, name], ...] kept runnable (docs/timing.md)
        "starvation_need": starvation_need(outcome.get("starvation"), starved_goroutines(outcome)),
        "go_versions": outcome.get("go_versions") or bucket.get("go_versions") or None,
        "replay_command": "fuzzfarm replay DIR",
        # the interpreter is this worker's: a download names its own (with_python)
        "replay_standalone": f"{STANDALONE_PYTHON} -m fuzzfarm.runone {harness} {variant} input.min --trace",
        "reproducible": bucket.get("reproducible"),
        "verify": [bucket.get("verify_ok"), bucket.get("verify_n")] if bucket.get("verify_n") not in (None, "") else None,
        "flaky": bool(bucket.get("flaky")),
        # each verify replay's PYTHONHASHSEED; every other run (and `fuzzfarm replay`) uses 0
        "verify_hash_seeds": list(bucket.get("verify_hash_seeds") or []),
        "hash_seed_dependent": bool(bucket.get("hash_seed_dependent")),
        "fix": fix_record(bucket),
    }
    bound = _run_bound(outcome, bucket)
    if bound is not _UNKNOWN:
        repro["max_starvation_s"] = bound
        # as written it replays under that bound, not the local FUZZFARM_MAX_STARVATION_S or default
        repro["replay_standalone"] += f" --max-starvation={max_starvation_text(bound)}"
    if repro["hash_seed_dependent"]:  # it failed under seed 0 (intake, minimizer): say so to a shell
        repro["replay_standalone"] = "PYTHONHASHSEED=0 " + repro["replay_standalone"]
    go_state = repro["go_crash_state"] or repro["crash_state"]
    state = "\n".join(f"  {g}  [{p}]" if g != p else f"  {g}" for g, p in zip(go_state, repro["crash_state"]))
    state = state or "(no project frames)"
    state_head = {"race": "crash state: the two racing accesses (Go, [Python]):",
                  "lock cycle": "crash state: the goroutines of the lock cycle (Go, [Python]):"}.get(
        repro["crash_state_shape"], "crash state (Go, [Python]), innermost first:")
    starved = outcome.get("starvation")
    head = (outcome.get("dump") or "").split("\n", 1)[0]
    go_says = f"{head}\n\n" if head.startswith(("fatal error: ", "panic: ", "--- FAIL: ")) else ""  # Go's own first line
    failure = (f"{go_says}crash type:  {ctype}\nsignature:   {signature}\nharness:     {harness} ({variant})\n"
               f"message:     {outcome.get('message') or ''}\n"
               + (f"on:          {outcome['subject']}\n" if outcome.get("subject") else "")
               # an assertion failure: who last wrote the state it read (gosim/invariant.py)
               + (f"{outcome['written_by']}\n" if outcome.get("written_by") else "")
               + (f"needs:       {repro['go_versions']}\n" if repro["go_versions"] else "")
               + (f"starvation:  {starvation_need(starved, starved_goroutines(outcome))}\n"
                  f"             (ran under starvation setting {_bound_text(bound)})\n" if starved is not None else "")
               + f"{state_head}\n{state}\n\n{fix_text(bucket)}{outcome.get('dump') or ''}\n")
    files = {
        "input.min": bytes(minimized),
        "input.orig": bytes(original),
        "trace.txt": _text(_trace_text(outcome, f"starvation need: {starvation_need(starved, starved_goroutines(outcome))}\n"
                                       if starved is not None else "")),
        "failure.txt": _text(failure),
        REPRO: json.dumps(repro, indent=2, sort_keys=True).encode() + b"\n",
    }
    ev = bucket.get("fix_evidence") or {}
    for c in ev.get("checks") or ():
        if c.get("reproducer_b64") and "fixed-fails.input" not in files:
            files["fixed-fails.input"] = base64.b64decode(c["reproducer_b64"])
    if outcome.get("trace_json"):  # the interleaving as data (events, goroutine legend) for the web view
        files["trace.json"] = json.dumps(outcome["trace_json"], sort_keys=True).encode() + b"\n"
    manifest = {"format": FORMAT, "files": {name: _sha256(data) for name, data in sorted(files.items())}}
    files[MANIFEST] = json.dumps(manifest, indent=2, sort_keys=True).encode() + b"\n"
    return files


def _trace_text(outcome: dict, need: str) -> str:
    """``trace.txt``: the replay's trace text (the failure's slice first, runone._trace_text), the
    starvation need line above its scenario line, under the slice; or the dump."""
    text = outcome.get("trace") or outcome.get("dump") or ""
    head, sep, rest = text.partition("\n\nscenario: ")
    if need and sep and head.startswith("failure: "):
        return f"{head}\n\n{need}scenario: {rest}"
    return need + text


STANDALONE_PYTHON = "python"  # how a stored repro.json's replay_standalone names the interpreter


def with_python(files: dict[str, bytes], python: str) -> dict[str, bytes]:
    """``files`` (a stored artifact) as written to the machine that downloads it: repro.json's
    ``replay_standalone`` runs ``python`` (that machine's interpreter with fuzzfarm, a full path)
    instead of the bare ``python`` the collector wrote on its worker, which outside fuzzfarm's venv
    is another Python or none; the manifest follows. Everything else stays byte for byte."""
    import shlex

    out = dict(files)
    try:
        repro = json.loads(out.get(REPRO) or b"")
    except ValueError:
        return out
    cmd = repro.get("replay_standalone") if isinstance(repro, dict) else None
    bare = f"{STANDALONE_PYTHON} -m fuzzfarm.runone "
    if not isinstance(cmd, str) or bare not in cmd:
        return out
    repro["replay_standalone"] = cmd.replace(bare, f"{shlex.quote(python)} -m fuzzfarm.runone ", 1)
    out[REPRO] = json.dumps(repro, indent=2, sort_keys=True).encode() + b"\n"
    return _with_manifest(out)


def _with_manifest(out: dict[str, bytes]) -> dict[str, bytes]:
    """``out`` with its manifest (when it has one) listing the sha256 of every other file."""
    if MANIFEST in out:
        body = {n: d for n, d in out.items() if n != MANIFEST}
        manifest = {"format": FORMAT, "files": {n: _sha256(d) for n, d in sorted(body.items())}}
        out[MANIFEST] = json.dumps(manifest, indent=2, sort_keys=True).encode() + b"\n"
    return out


def refresh_fix(files: dict[str, bytes], before: dict, after: dict) -> dict[str, bytes]:
    """``files`` (a stored artifact of bucket record ``before``) with the fix verdict of record
    ``after`` (the same bucket once its proof was added to the fix evidence): ``repro.json``'s
    ``fix``, ``failure.txt``'s fix block, ``fixed-fails.input`` and the manifest; nothing is
    replayed, every other byte stays."""
    out = dict(files)
    if REPRO in out:
        try:
            repro = json.loads(out[REPRO])
        except ValueError:
            repro = None
        if isinstance(repro, dict):
            repro["fix"] = fix_record(after)
            out[REPRO] = json.dumps(repro, indent=2, sort_keys=True).encode() + b"\n"
    old_block, new_block = _text(fix_text(before)), _text(fix_text(after))
    if "failure.txt" in out and old_block and old_block in out["failure.txt"]:
        out["failure.txt"] = out["failure.txt"].replace(old_block, new_block, 1)
    for c in (after.get("fix_evidence") or {}).get("checks") or ():
        if c.get("reproducer_b64") and "fixed-fails.input" not in out:
            out["fixed-fails.input"] = base64.b64decode(c["reproducer_b64"])
    return _with_manifest(out)


def write_artifact(files: dict[str, bytes], out_dir) -> list[str]:
    """Write ``files`` into ``out_dir`` (created if missing); returns the paths written.

    Every name is checked first (nothing is written if one is unsafe); each file is written to
    a temporary name in ``out_dir`` and renamed into place, so a symlink planted under a
    file's name is replaced, never followed. Raises ArtifactError for an unsafe name."""
    names = [safe_name(n) for n in files]
    out_dir = os.path.abspath(os.fspath(out_dir))
    os.makedirs(out_dir, exist_ok=True)
    real = os.path.realpath(out_dir)
    written = []
    for name in names:
        path = os.path.join(real, name)
        if os.path.dirname(path) != real:  # belt and braces after safe_name
            raise ArtifactError(f"refusing artifact file name {name!r}: it leaves {out_dir}")
        tmp = os.path.join(real, f".{name}.tmp-{os.getpid()}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(files[name])
            os.replace(tmp, path)
        except BaseException:
            if os.path.lexists(tmp):
                os.unlink(tmp)
            raise
        written.append(path)
    return written


def _text_field(v) -> bool:
    return isinstance(v, str)


# What replay reads from repro.json, and the type each must have when present.
_REPRO_FIELDS = {"harness": _text_field, "variant": _text_field, "signature": _text_field,
                 "harness_hash": _text_field, "fuzzfarm_version": _text_field, "crash_type": _text_field,
                 "crash_state": lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v)}


class _NotRegular(OSError):
    """A reproducer's file that is a device, a pipe or a socket (e.g. a link to /dev/zero)."""


def _read_regular(path: str) -> bytes:
    """The bytes of the regular file ``path``. A device or pipe under a reproducer file's name would
    be read forever (/dev/zero) or block (a FIFO): _NotRegular, checked on the opened file."""
    import stat

    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a FIFO without writer: no wait
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise _NotRegular(f"{path} is not a regular file")
        return f.read()


def load_artifact(directory) -> Artifact:
    """Read and verify a reproducer directory. Raises ArtifactError naming the bad file: a
    missing or unreadable manifest, a listed file that is missing, a sha256 mismatch, an
    unsafe name in the manifest, or a missing ``input.min`` / ``repro.json``."""
    directory = os.fspath(directory)
    if not os.path.isdir(directory):
        raise ArtifactError(f"{directory or repr(directory)} is not a directory; download the reproducer first "
                            f"(fuzzfarm download)")
    mpath = os.path.join(directory, MANIFEST)
    try:
        manifest_bytes = _read_regular(mpath)
        manifest = json.loads(manifest_bytes)
        listed = manifest["files"]
        if not isinstance(listed, dict):
            raise TypeError
    except FileNotFoundError:
        raise ArtifactError(f"{MANIFEST} is missing in {directory}; download the reproducer again") from None
    except _NotRegular:
        raise ArtifactError(f"{MANIFEST} in {directory} is not a regular file; download the reproducer again") from None
    except OSError as e:  # a directory under the manifest's name, no read permission, ...
        raise ArtifactError(f"cannot read {MANIFEST} in {directory} ({e.strerror}); download the reproducer "
                            f"again") from None
    except (ValueError, KeyError, TypeError):
        raise ArtifactError(f"{MANIFEST} in {directory} is corrupt; download the reproducer again") from None
    files = {}
    for name, want in sorted(listed.items()):
        safe_name(name)
        path = os.path.join(directory, name)
        try:
            data = _read_regular(path)
        except FileNotFoundError:
            raise ArtifactError(f"{name} is missing from {directory}; download the reproducer again") from None
        except _NotRegular:
            raise ArtifactError(f"{name} in {directory} is not a regular file (a device or a pipe); download the "
                                f"reproducer again") from None
        except OSError as e:  # e.g. a directory where the file should be
            raise ArtifactError(f"cannot read {name} in {directory} ({e.strerror}); download the reproducer "
                                f"again") from None
        got = _sha256(data)
        if got != want:
            raise ArtifactError(f"{name} is corrupt or was modified: sha256 {got} does not match the manifest's "
                                f"{want}; download the reproducer again")
        files[name] = data
    for name in REQUIRED:
        if name not in files:
            raise ArtifactError(f"{name} is not in the manifest of {directory}; this is not a fuzzfarm reproducer")
    try:
        repro = json.loads(files[REPRO])
    except ValueError:
        raise ArtifactError(f"{REPRO} in {directory} is not valid JSON; download the reproducer again") from None
    if not isinstance(repro, dict):  # the manifest's sha256 may well match a hand-made file
        raise ArtifactError(f"{REPRO} in {directory} is not a JSON object; this is not a fuzzfarm reproducer "
                            f"(download it again)")
    for key, ok in _REPRO_FIELDS.items():
        if key in repro and repro[key] is not None and not ok(repro[key]):
            raise ArtifactError(f"{REPRO} in {directory} has a malformed {key!r} ({type(repro[key]).__name__}); "
                                f"this is not a fuzzfarm reproducer (download it again)")
    files[MANIFEST] = manifest_bytes
    return Artifact(directory=directory, files=files, repro=repro)
