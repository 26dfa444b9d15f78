"""A few branches on the input's first bytes: coverage for libFuzzer (so test campaigns grow a
small corpus), imported by ff-crashy inside ``atheris.instrument_imports()``."""


def shape(data: bytes) -> int:
    n = 0
    if len(data) > 2:
        n += 1
        if data[1] > 0x80:
            n += 2
        if data[2] == 0x41:
            n += 4
            if len(data) > 5 and data[5] == 0x42:
                n += 8
    if len(data) > 8:
        n += 16
    return n
