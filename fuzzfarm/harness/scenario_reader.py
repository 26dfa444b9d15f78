"""Reading a harness's scenario from its input, so that any run can be written back as bytes.

Every harness input is laid out the same way: the scenario (events, timing) is read as
integers from the END of the input, libFuzzer/atheris ``FuzzedDataProvider`` style, and the
schedule is what is left at the front, ``data[:reader.schedule_end]``.

A scenario may want more bytes than the input has (a short input is a small scenario). The
reader then reads zeros, and counts them in ``short``. ``Execution.as_bytes_input`` writes those
zeros out between the recorded schedule and the scenario bytes; without them, a reproducer
recorded from a random/PCT walk would have its scenario read partly from its own schedule bytes
and decode to another scenario (the walk's "unreplayable" crashes).

On inputs long enough for the scenario, :meth:`ScenarioReader.int_in_range` returns exactly what
``atheris.FuzzedDataProvider.ConsumeIntInRange`` returns and consumes the same bytes (tested
against it), so corpora written with either decode the same.
"""

from __future__ import annotations

_U64 = (1 << 64) - 1


class ScenarioReader:
    """Integers from the end of ``data``; past its start, zero bytes (counted in ``short``).

    ``int_in_range(lo, hi)`` reads ``ceil(bits(hi - lo) / 8)`` bytes (at most 8), last byte
    first, as LLVM's ``FuzzedDataProvider::ConsumeIntegralInRange``; ``pick(seq)`` is one item of
    a non-empty sequence. Raises ValueError if ``lo > hi`` or ``hi - lo`` needs more than 64 bits.
    """

    __slots__ = ("data", "schedule_end", "short")

    def __init__(self, data: bytes):
        self.data = data
        self.schedule_end = len(data)  # data[:schedule_end] is not read (yet): the schedule
        self.short = 0  # zero bytes read past the input's start

    def int_in_range(self, lo: int, hi: int) -> int:
        span = hi - lo
        if span < 0 or span > _U64:
            raise ValueError(f"int_in_range({lo}, {hi}): need lo <= hi and hi - lo < 2**64")
        result = 0
        shift = 0
        while shift < 64 and span >> shift:
            if self.schedule_end:
                self.schedule_end -= 1
                result = (result << 8) | self.data[self.schedule_end]
            else:
                result <<= 8
                self.short += 1
            shift += 8
        if span != _U64:
            result %= span + 1
        return lo + result

    def pick(self, seq):
        return seq[self.int_in_range(0, len(seq) - 1)]
