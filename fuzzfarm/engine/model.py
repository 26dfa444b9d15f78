"""What a fuzz job reports: crashes as they happen, stats while it runs, the result at the end.

Plain dataclasses with ``to_json`` so the farm can put them on a JSON wire unchanged.
"""

from __future__ import annotations

import base64
import dataclasses

from fuzzfarm.harness.contract import MAX_INPUT_BYTES  # noqa: F401 - re-exported for the layers above

ARTIFACT_KINDS = ("crash", "timeout", "oom", "leak")


@dataclasses.dataclass
class CrashReport:
    """One crash found by a job: the input (a bytes reproducer for every strategy), the
    libFuzzer artifact kind and the last lines of fuzzer output around it (secrets-free)."""

    data: bytes
    artifact: str
    log_tail: str
    # The bucket signature the fuzz child computed for the failure it raised on ``data``
    # (harness.SIGNATURE_LINE; "" when it said none: a timeout, an oom, a harness error).
    signature: str = ""

    def to_json(self) -> dict:
        return {"data_b64": base64.b64encode(self.data).decode(), "artifact": self.artifact,
                "log_tail": self.log_tail, "signature": self.signature}


@dataclasses.dataclass
class JobStats:
    """Streamed while the job runs, and final at the end. ``exec_per_s`` is computed as
    execs / elapsed (libFuzzer's own figure is whole-second arithmetic, docs/TRAPS.md#g6)."""

    execs: int = 0
    exec_per_s: float = 0.0
    cov: int = 0
    ft: int = 0
    corpus_size: int = 0
    crashes: int = 0
    elapsed_s: float = 0.0

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


class StopRequested(Exception):
    """Raised by an ``on_stats`` callback to end a job early as if its time were up (a worker
    shutting down): the fuzzer is stopped, the crashes found so far have been reported, the new
    corpus is collected, and the result says ``stopped``."""


@dataclasses.dataclass
class JobResult:
    """The end of a job. ``error`` is one sentence saying what went wrong and what to do, or
    None; ``restarts`` counts fuzzer (re)starts after the first; ``stopped``: it ended early
    because a callback raised :class:`StopRequested` (``stats.elapsed_s`` is the time it ran)."""

    stats: JobStats
    new_corpus: list[bytes]
    crashes: int
    restarts: int
    error: str | None = None
    stopped: bool = False
    # walks: {"distinct": distinct schedules run, "arms": {arm: {runs, finds, cost}} for walk-mix},
    # summed over the walk's (re)starts (fuzzfarm/engine/walk.py)
    walk: dict = dataclasses.field(default_factory=dict)

    def to_json(self) -> dict:
        return {"stats": self.stats.to_json(), "crashes": self.crashes, "restarts": self.restarts,
                "error": self.error,
                "new_corpus_b64": [base64.b64encode(d).decode() for d in self.new_corpus]}

# MAX_INPUT_BYTES: inputs larger than this are refused everywhere (imported above: defined with
# the harness contract, whose ``python -m fuzzfarm.runone`` reads inputs too).
