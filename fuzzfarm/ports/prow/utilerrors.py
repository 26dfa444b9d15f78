"""``k8s.io/apimachinery/pkg/util/errors``: ``NewAggregate`` and the aggregate's message.

An aggregate keeps its errors in the order they were appended. In ``BuildClusters`` that is the
order in which the per-cluster goroutines finished, so the text varies between schedules
(docs/ports/prow.md#h6): compare :meth:`Aggregate.messages` as a set.
"""

from __future__ import annotations

from fuzzfarm.gosim import GoError, go_func, not_ported


class Aggregate(GoError):
    """``utilerrors.Aggregate``: a list of errors that is itself an error."""

    @not_ported("the aggregate value (the conversion aggregate(errs) in NewAggregate)")
    def __init__(self, errors: list):
        self.errors = list(errors)
        super().__init__(self._text())

    @go_func("errors.aggregate.visit", "errors.go:103")
    def _flat(self) -> list:
        out = []
        for e in self.errors:
            if isinstance(e, Aggregate):
                out.extend(e._flat())
            else:
                out.append(e)
        return out

    @go_func("errors.aggregate.Error", "errors.go:69")
    def _text(self) -> str:
        # Go's aggregate.Error(): one error -> its text; otherwise unique texts, "[a, b]".
        if len(self.errors) == 1:
            return str(self.errors[0])
        seen: set[str] = set()
        parts: list[str] = []
        for e in self._flat():
            msg = str(e)
            if msg in seen:
                continue
            seen.add(msg)
            parts.append(msg)
        return parts[0] if len(parts) == 1 else "[" + ", ".join(parts) + "]"

    @not_ported("the error texts as a set, for order-free comparison in tests")
    def messages(self) -> frozenset[str]:
        """The flattened error texts as a set (order-free comparison)."""
        return frozenset(str(e) for e in self._flat())

    @not_ported("how the port prints an aggregate")
    def __repr__(self) -> str:
        return f"Aggregate({self._text()!r})"


@go_func("errors.NewAggregate", "errors.go:46")
def new_aggregate(errs: list) -> Aggregate | None:
    """``utilerrors.NewAggregate``: None for no (non-nil) errors."""
    errs = [e for e in errs if e is not None]
    return Aggregate(errs) if errs else None
