"""Remove credentials from text that leaves the worker (crash logs, error messages)."""

from __future__ import annotations

import re

_URL_CREDS = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)([^:@/\s]*):([^@/\s]+)@")
_KEY_VALUE = re.compile(r"(?i)\b((?:[a-z_]*_)?(?:password|passwd|secret|token|api_key))(\s*[=:]\s*)(\"[^\"]*\"|'[^']*'|\S+)")


def redact(text: str) -> str:
    """``redis://:pw@host`` -> ``redis://:***@host``; ``password=x`` -> ``password=***``."""
    text = _URL_CREDS.sub(lambda m: f"{m.group(1)}{m.group(2)}:***@", text)
    return _KEY_VALUE.sub(lambda m: f"{m.group(1)}{m.group(2)}***", text)
