"""``objectChecker``: the state one checker goroutine reports, and the handle to stop it.

Upstream: kubernetes/perf-tests at 83e45df022ca,
``clusterloader2/pkg/measurement/common/wait_for_controlled_pods.go`` lines 674-720
(``objectStatus`` 674 and its constants 676-683, the struct 685-695, ``newObjectChecker``
697-702, ``SetCancel`` 704-708, ``Stop`` 710-714, ``getStatus`` 716-720). Every method holds ``o.lock`` throughout. ``cancel`` is nil until someone stores it,
and ``stop`` calls it unconditionally: the nil call at line 713 is the seed bug (a Go nil-func
panic; here calling ``None`` raises ``TypeError`` and nothing catches it).
"""

from __future__ import annotations

import enum
from typing import Callable

from fuzzfarm.gosim import Mutex, Shared, go_func, not_ported


GO_FILE = "wait_for_controlled_pods.go"


class ObjectStatus(enum.IntEnum):
    """``objectStatus``: where the checker's WaitForPods ended (``UNKNOWN`` = not yet)."""

    UNKNOWN = 0
    RUNNING = 1
    DELETED = 2
    FAILED = 3
    TIMEOUT = 4
    DELETE_TIMEOUT = 5


class ObjectChecker:
    """``objectChecker`` (``newObjectChecker``: status unknown, cancel nil).

    The fields W, M and the checker goroutine C all touch are race-checked ``Shared`` fields
    (upstream: plain fields guarded by ``o.lock``, except ``err`` on P4's path)."""

    status = Shared(ObjectStatus.UNKNOWN)  # status objectStatus
    err = Shared(None)  # err error
    cancel = Shared(None)  # cancel context.CancelFunc
    duration = Shared(0.0)  # duration time.Duration
    failed_pods = Shared(())  # failedPods []string

    @go_func("common.newObjectChecker", f"{GO_FILE}:697")
    def __init__(self, key: str):
        self.lock = Mutex(f"objectChecker[{key}].lock")
        self.status = ObjectStatus.UNKNOWN
        self.err = None
        self.key = key
        self.cancel: Callable[[], None] | None = None
        self.duration = 0.0
        self.failed_pods: list[str] = []

    @go_func("objectChecker.SetCancel", f"{GO_FILE}:704")
    def set_cancel(self, cancel: Callable[[], None]) -> None:
        """``SetCancel`` (704-708)."""
        with self.lock:
            self.cancel = cancel

    @go_func("objectChecker.Stop", f"{GO_FILE}:710")
    def stop(self) -> None:
        """``Stop`` (710-714): cancel the checker's context. Panics while ``cancel`` is nil."""
        with self.lock:
            self.cancel()  # :713

    @go_func("objectChecker.getStatus", f"{GO_FILE}:716")
    def get_status(self):
        """``getStatus`` (716-720): ``(status, err)``."""
        with self.lock:
            return self.status, self.err

    @not_ported("how the port prints a checker in logs and dumps")
    def __repr__(self) -> str:
        return f"<objectChecker {self.key} {self.__dict__.get('status', ObjectStatus.UNKNOWN).name}>"  # no checked read
