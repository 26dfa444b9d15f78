"""Content-addressed corpus directories (one file per input, named by its sha1, as libFuzzer
names them) and corpus merging with libFuzzer's ``-merge=1``."""

from __future__ import annotations

import hashlib
import logging
import os
import sys
import tempfile

from fuzzfarm.harness import child as process
from .model import MAX_INPUT_BYTES
from fuzzfarm.harness.target import resolve

log = logging.getLogger(__name__)


def sha1(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


def write_inputs(directory: str, inputs) -> set[str]:
    """Write each input as ``directory/<sha1>``; returns the names. Inputs over
    ``MAX_INPUT_BYTES`` are skipped with a warning."""
    os.makedirs(directory, exist_ok=True)
    names = set()
    for data in inputs:
        if len(data) > MAX_INPUT_BYTES:
            log.warning("skipping a %d-byte corpus input: over the %d-byte limit", len(data), MAX_INPUT_BYTES)
            continue
        name = sha1(data)
        path = os.path.join(directory, name)
        if name not in names and not os.path.exists(path):
            with open(path, "wb") as f:
                f.write(data)
        names.add(name)
    return names


def read_inputs(directory: str) -> dict[str, bytes]:
    """Every regular file of ``directory`` keyed by the sha1 of its content."""
    out = {}
    if not os.path.isdir(directory):
        return out
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        if name.startswith(".") or not os.path.isfile(path) or os.path.getsize(path) > MAX_INPUT_BYTES:
            continue
        with open(path, "rb") as f:
            data = f.read()
        out[sha1(data)] = data
    return out


def merge_corpus(harness, variant: str, inputs: list[bytes], workdir: str, *,
                 timeout_s: int = 10, rss_limit_mb: int = 2048, budget_s: float = 600.0) -> list[bytes]:
    """The subset of ``inputs`` that keeps all their coverage (libFuzzer ``-merge=1``),
    ordered by sha1. If the merge fails, or claims success with nothing kept while there were
    inputs (the silent failure of docs/TRAPS.md#g1), the deduplicated inputs come back
    unchanged and a warning is logged: merging only ever shrinks a corpus.
    Raises HarnessError for an unknown harness."""
    target = resolve(harness)
    unique = {sha1(d): d for d in inputs if len(d) <= MAX_INPUT_BYTES}
    fallback = [unique[k] for k in sorted(unique)]
    if len(unique) < 2:
        return fallback
    os.makedirs(workdir, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="merge-", dir=workdir) as tmp:
        src, dst, art = (os.path.join(tmp, d) for d in ("in", "out", "artifacts"))
        os.makedirs(dst)
        os.makedirs(art)
        write_inputs(src, fallback)
        argv = [sys.executable, target.path, "-merge=1", f"-timeout={timeout_s}",
                f"-rss_limit_mb={rss_limit_mb}", f"-artifact_prefix={art}/", dst, src]
        env = target.child_env({"FUZZFARM_VARIANT": variant, "TMPDIR": tmp})
        rc, out = process.run_bounded(argv, env=env, cwd=tmp, timeout=budget_s)
        kept = read_inputs(dst)
        if rc != 0 or not kept:
            tail = out.strip().splitlines()[-1:] or ["(no output)"]
            log.warning("corpus merge for %s/%s failed (exit %s: %s); keeping the %d inputs unmerged",
                        target.name, variant, rc, tail[0], len(fallback))
            return fallback
        return [kept[k] for k in sorted(kept)]
