"""Bucket identity lives in :mod:`fuzzfarm.signature`, below both the engine and the collector
(the engine's walk checks signatures too); this name stays for callers of the collector."""

from fuzzfarm.signature import (MAX_CRASH_STATE_FRAMES, artifact_signature, classify, crash_type,  # noqa: F401
                                normalize_state, signature, signature_of)
