"""gosim: a deterministic goroutine runtime.

Goroutines (greenlets), ``sync`` (Mutex, RWMutex, WaitGroup, Once), channels and ``select``,
``context``, a virtual clock with timers and tickers, a race-checked ``Map``, ``Cond``,
``atomic`` values, ``errgroup``, and Go's data race detector (``Shared`` fields, ``Var``
cells; ``DataRace``). Every
scheduling decision and every early timer firing comes from a strategy
(``fuzzfarm.strategies``): the same strategy input gives the same run, bit for bit.

    from fuzzfarm import gosim
    from fuzzfarm.strategies import BytesStrategy

    report = gosim.run(main, strategy=BytesStrategy(data))
    report.raise_failure()
"""

from .api import RunReport, go, goroutine_id, gosched, run
from .chan import DEFAULT, Chan, close, recv_case, recv_ok, select, send, send_case
from .clock import Ticker, Timer, after, after_func, new_ticker, new_timer, now, since, sleep
from .context import (CANCELED, DEADLINE_EXCEEDED, Context, GoError, background, todo, with_cancel,
                      with_deadline, with_timeout, with_value)
from .failures import (ALL_FAILURES, CloseOfClosedChannel, CloseOfNilChannel, ConcurrentMapIterationWrite,
                       ConcurrentMapReadWrite, ConcurrentMapWrites, Deadlock, GoFailure, GoroutineLeak,
                       GoroutineDump, GoroutinePanic, NegativeWaitGroupCounter, SchedulingError, SendOnClosedChannel,
                       StackFrame, StepLimitExceeded, UnlockOfUnlockedMutex, WaitGroupReuse)
from .gomap import Map
from . import atomic, errgroup
from .cond import Cond
from .race import DataRace
from .shared import Shared, Var
from .gonames import go_func, not_ported
from .runtime import TIMER, current_runtime
from .sync import Mutex, Once, RWMutex, WaitGroup
from .trace import Event, Trace

__all__ = [n for n in dir() if not n.startswith("_")]
