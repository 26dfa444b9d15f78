"""Turn crashes into buckets with verified reproducers: signature, minimization, verification,
fix verification, artifacts. Celery-free: the farm's collect tasks call these. See
docs/INTERFACES.md. Everything that runs harness code does so in a child process."""

from __future__ import annotations

from .artifact import (Artifact, ArtifactError, build_artifact, load_artifact, recorded_max_starvation, with_python,
                       write_artifact)
from .fixcheck import replay_on_fixed
from .fixfuzz import fuzz_fixed
from .fixverify import fix_verify
from .minimize import MinimizeResult, minimize
from .prove import prove_fixed
from .replay import replay, triage
from fuzzfarm.harness.signature import artifact_signature, classify, crash_type, signature, signature_of
from .verify import VerifyResult, verify

__all__ = ["signature", "signature_of", "artifact_signature", "crash_type", "classify", "minimize", "MinimizeResult",
           "verify", "VerifyResult", "replay_on_fixed", "fix_verify", "fuzz_fixed", "prove_fixed", "replay", "triage",
           "build_artifact", "write_artifact", "recorded_max_starvation", "with_python",
           "load_artifact", "Artifact", "ArtifactError"]
