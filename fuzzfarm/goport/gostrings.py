"""The gosim model of Go's ``strings`` package (the functions Kubernetes and etcd code calls),
registered in :mod:`fuzzfarm.goport.models`.

A port's Go string is a Python ``str`` (``len`` counts its UTF-8 bytes, rt.glen). These functions
give Go's results on it, byte-based where Go is: ``Index`` returns a byte offset; ``Split`` /
``SplitN`` with an empty separator explode the string into its UTF-8 sequences (code points);
``Fields`` / ``TrimSpace`` use Go's ``unicode.IsSpace`` set (Python's ``str.split()`` also splits
at U+001C..U+001F, Go's does not); ``ToUpper`` / ``ToLower`` / ``EqualFold`` use Go's simple
(one rune to one rune) case mapping, never Python's full one (``"ß".upper()`` is ``"SS"`` in
Python, ``ß`` in Go). Slices are ``rt.Slice`` (nil is ``None``): ``Split`` never returns nil,
``SplitN(s, sep, 0)`` does, ``Fields("")`` is an empty non-nil slice, as in Go.

None of these functions touches shared state or blocks, so they are not scheduling points; the
one type, ``Builder``, is: its buffer is a race-checked field (Go's ``(*Builder).WriteString``
reads and writes ``b.buf``, which ``-race`` instruments), and copying a non-zero Builder by value
then writing to the copy panics as Go's ``copyCheck`` does.
"""

from __future__ import annotations

import re

from fuzzfarm import gosim
from fuzzfarm.gosim import not_ported
from fuzzfarm.gosim.gopanic import go_panic

from . import gocase
from .rt import GoPanicError, Slice

# unicode.IsSpace (Go's unicode/graphic.go: the Latin-1 ones, then the White_Space property)
GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
           "\u2028\u2029\u202f\u205f\u3000"
_FIELDS = re.compile(f"[{re.escape(GO_SPACE)}]+")
_STD = "Go's standard library strings package: the ports pin no Go release, so no file.go:line"


def _slice(xs: list) -> Slice:
    return Slice(list(xs))


def _elems(s) -> list:
    return [] if s is None else list(s)


@not_ported(f"strings.Split, {_STD}")
def split(s: str, sep: str) -> Slice:
    return split_n(s, sep, -1)


@not_ported(f"strings.SplitN, {_STD}")
def split_n(s: str, sep: str, n: int):
    """Go's genSplit: n == 0 is nil, n < 0 all; an empty sep explodes into code points (the
    last element holds the rest when n is smaller than their number)."""
    if n == 0:
        return None
    if sep == "":
        runes = list(s)
        if n < 0 or n >= len(runes):
            return _slice(runes)
        return _slice(runes[:n - 1] + ["".join(runes[n - 1:])])
    return _slice(s.split(sep) if n < 0 else s.split(sep, n - 1))


@not_ported(f"strings.Join, {_STD}")
def join(elems, sep: str) -> str:
    return sep.join(_elems(elems))


@not_ported(f"strings.Contains, {_STD}")
def contains(s: str, substr: str) -> bool:
    return substr in s


@not_ported(f"strings.HasPrefix, {_STD}")
def has_prefix(s: str, prefix: str) -> bool:
    return s.startswith(prefix)


@not_ported(f"strings.HasSuffix, {_STD}")
def has_suffix(s: str, suffix: str) -> bool:
    return s.endswith(suffix)


@not_ported(f"strings.TrimSpace, {_STD}")
def trim_space(s: str) -> str:
    return s.strip(GO_SPACE)


@not_ported(f"strings.TrimPrefix, {_STD}")
def trim_prefix(s: str, prefix: str) -> str:
    return s.removeprefix(prefix)


@not_ported(f"strings.TrimSuffix, {_STD}")
def trim_suffix(s: str, suffix: str) -> str:
    return s.removesuffix(suffix)


@not_ported(f"strings.Fields, {_STD}")
def fields(s: str) -> Slice:
    return _slice([f for f in _FIELDS.split(s) if f])


@not_ported(f"strings.Index, {_STD}")
def index(s: str, substr: str) -> int:
    """The byte offset of the first ``substr`` in ``s``, or -1 (Python counts code points)."""
    i = s.find(substr)
    return i if i <= 0 else len(s[:i].encode())


@not_ported(f"strings.Repeat, {_STD}")
def repeat(s: str, count: int) -> str:
    if count < 0:
        raise go_panic(GoPanicError, "strings: negative Repeat count")
    return s * count


@not_ported(f"strings.ToLower, {_STD}")
def to_lower(s: str) -> str:
    return s.lower() if s.isascii() else "".join(gocase.to_lower(c) for c in s)


@not_ported(f"strings.ToUpper, {_STD}")
def to_upper(s: str) -> str:
    return s.upper() if s.isascii() else "".join(gocase.to_upper(c) for c in s)


@not_ported(f"strings.EqualFold, {_STD}")
def equal_fold(s: str, t: str) -> bool:
    """Go's simple case folding, rune by rune (unicode.SimpleFold's orbits)."""
    if s.isascii() and t.isascii():
        return len(s) == len(t) and s.lower() == t.lower()
    return len(s) == len(t) and all(a == b or gocase.fold(a) == gocase.fold(b) for a, b in zip(s, t))


@not_ported(f"strings.Replace, {_STD}")
def replace(s: str, old: str, new: str, n: int) -> str:
    """n < 0: every match; an empty ``old`` matches before each code point and at the end."""
    return s.replace(old, new, n if n >= 0 else -1)


@not_ported(f"strings.ReplaceAll, {_STD}")
def replace_all(s: str, old: str, new: str) -> str:
    return s.replace(old, new)


class Builder:
    """``strings.Builder``: ``buf`` is a race-checked field (as Go's is to ``-race``); ``addr``
    is the Builder that first wrote (Go's self-pointer for copyCheck)."""

    buf = gosim.Shared("")
    _go_fields_ = ("buf", "addr")

    @not_ported(f"the zero strings.Builder, {_STD}")
    def __init__(self):
        self.addr = None

    def _check(self) -> None:
        """Go's copyCheck: a Builder copied by value after it was written cannot be written."""
        if self.addr is None:
            self.addr = self
        elif self.addr is not self:
            raise go_panic(GoPanicError, "strings: illegal use of non-zero Builder copied by value")

    def _copy_(self) -> Builder:
        c = Builder.__new__(Builder)
        c.buf, c.addr = self.buf, self.addr
        return c

    def _set_(self, v: Builder) -> None:
        self.buf, self.addr = v.buf, v.addr

    @not_ported(f"strings.(*Builder).WriteString, {_STD}")
    def write_string(self, s: str):
        self._check()
        self.buf = self.buf + s
        return len(s.encode()), None

    @not_ported(f"strings.(*Builder).WriteRune, {_STD}")
    def write_rune(self, r: int):
        self._check()
        ch = chr(r)
        self.buf = self.buf + ch
        return len(ch.encode()), None

    @not_ported(f"strings.(*Builder).String, {_STD}")
    def string(self) -> str:
        return self.buf

    @not_ported(f"strings.(*Builder).Len, {_STD}")
    def len_(self) -> int:
        return len(self.buf.encode())

    @not_ported(f"strings.(*Builder).Reset, {_STD}")
    def reset(self) -> None:
        self.addr = None
        self.buf = ""
