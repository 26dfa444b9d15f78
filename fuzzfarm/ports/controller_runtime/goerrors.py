"""Go ``error`` values for the ports: ``errors.New``, ``fmt.Errorf("...: %w", err)``, ``errors.Is``.

Errors are *values* returned next to results, as in Go, never raised: the ported code then
cannot swallow a runtime failure (``GoFailure``) by accident with an ``except``.
"""

from __future__ import annotations

from fuzzfarm.gosim import GoError, not_ported


class Error(GoError):
    """An error value; ``wrapped`` is what ``%w`` wrapped (for :func:`is_`)."""

    @not_ported("an error value (errors.errorString or fmt.wrapError): Go needs no function for it")
    def __init__(self, msg: str, wrapped: BaseException | None = None):
        super().__init__(msg)
        self.msg = msg
        self.wrapped = wrapped

    @not_ported("how the port prints an error value")
    def __repr__(self) -> str:
        return f"Error({self.msg!r})"


@not_ported("errors.New, Go's standard library: the ports pin no Go release, so no file.go:line")
def new(msg: str) -> Error:
    """``errors.New(msg)``."""
    return Error(msg)


@not_ported("fmt.Errorf with %w, Go's standard library: the ports pin no Go release, so no file.go:line")
def wrap(prefix: str, err: BaseException) -> Error:
    """``fmt.Errorf(prefix + ": %w", err)``."""
    return Error(f"{prefix}: {err}", err)


@not_ported("errors.Is, Go's standard library: the ports pin no Go release, so no file.go:line")
def is_(err: BaseException | None, target: BaseException) -> bool:
    """``errors.Is``: follows ``wrapped`` chains and aggregates (``errors`` lists)."""
    stack = [err]
    while stack:
        e = stack.pop()
        if e is None:
            continue
        if e is target:
            return True
        stack.append(getattr(e, "wrapped", None))
        stack.extend(getattr(e, "errors", ()))
    return False
