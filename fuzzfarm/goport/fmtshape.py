"""What fmt prints for a composite value (docs/PORT.md, fmt): a struct value and a pointer to it
are one Python object, so at every fmt call (fmt.Sprintf/Sprint/Errorf, t.Fatalf and its family,
log, panic) the translator passes each composite argument's static type as a shape
(rt.fmt_shaped reads it): "v" a struct value, "vm" one whose value method set has Error or
String, "p" a pointer to a struct, "pm" one below the top whose Error/String fmt calls, "d" a
time.Duration, ("m", key, elem) a map, ("l", elem) a slice or array, None a value whose dynamic
type decides, "?" one the port cannot print (a field: printed "?"). A type it cannot print as Go does is refused at the call."""

from __future__ import annotations

import re

BASIC = {"bool", "string", "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64",
         "uintptr", "byte", "rune", "float32", "float64"}
DYNAMIC = {"any", "interface{}", "error"}
FMT_CALLEES = {"rt.sprintf", "rt.sprint", "rt.errorf", "golog.printf", "golog.println", "golog.print_"}
FMT_METHODS = {"fatal", "fatalf", "error", "errorf", "log", "logf", "skip", "skipf", "printf", "println", "print_"}
KEYS = BASIC  # map keys fmt sorts as the port can (internal/fmtsort): numbers, strings, bools, structs of them


class Unprintable(Exception):
    """A type the port cannot print as Go does (its text: why)."""


def _split_map(t: str) -> tuple[str, str]:
    """``map[K]V`` -> (K, V), brackets balanced."""
    depth = 0
    for i, c in enumerate(t):
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
            if depth == 0:
                return t[4:i], t[i + 1:]
    raise Unprintable(t)


def no_calls(d):
    """Shape ``d`` reached through an unexported field: fmt calls no Error/String below it (a
    Duration prints its nanoseconds, a pointer its address even where *T has String)."""
    if d == "d":
        return None
    if d in ("vm", "pm"):
        return d[0]
    if isinstance(d, tuple):
        return (d[0],) + tuple(no_calls(x) for x in d[1:])
    return d


class FmtShapes:
    """Mixin of the Translator: the shapes of fmt arguments and of struct fields."""

    def fmt_methods(self, name: str) -> tuple[bool, bool]:
        """(the value method set has Error or String, the pointer's has)."""
        val = ptr = False
        for d in self.structs[name].methods:
            if d["Name"]["Name"] in ("Error", "String") and not d["Type"]["Params"]["List"]:
                ptr = True
                val = val or d["Recv"]["List"][0]["Type"]["K"] != "StarExpr"
        return val, ptr

    def fmt_shape(self, t: str, top: bool = True, key: bool = False):
        """The shape of Go type string ``t`` (RelativeTo the package), or Unprintable. Below the
        top, fmt calls a value's Error/String where it reaches it through exported fields only
        (reflect's CanInterface): field_shapes takes the calls away from an unexported field."""
        t = t.strip()
        if t in BASIC:
            return None
        if key:
            if t in self.structs and not any(self.fmt_shape(ty["T"], key=True) for _, _, ty, _ in self.structs[t].fields):
                return "vm" if self.fmt_methods(t)[0] else "v"  # a struct of basic fields: ordered field by field
            raise Unprintable(f"a map keyed by {t} (fmt sorts keys the port only orders when numbers, strings, bools or structs of them)")
        if t in DYNAMIC:
            return None
        if t == "time.Duration":
            return "d"  # its String() (below the top: a Duration put in an interface is boxed at the top)
        if t.startswith("*") and t[1:] in self.structs:
            return "p" if top or not self.fmt_methods(t[1:])[1] else "pm"
        if t in self.structs:
            return "vm" if self.fmt_methods(t)[0] else "v"
        if t.startswith("[]"):
            return ("l", self.fmt_inner(t[2:]))
        m = re.match(r"\[\d+\]", t)
        if m:
            return ("l", self.fmt_inner(t[m.end():]))
        if t.startswith("map["):
            k, v = _split_map(t)
            return ("m", self.fmt_shape(k, key=True), self.fmt_inner(v))
        ent = self.named.get(t)
        if ent is not None and not any(m["Name"]["Name"] in ("Error", "String") for m in ent["methods"]):
            under = (ent["spec"].get("Type") or {}).get("T", t)
            if under != t and under not in self.named:  # a named map, slice, ...: its underlying type's text
                return self.fmt_shape(under, top)
        raise Unprintable(f"a value of type {t}")

    def fmt_inner(self, t: str):
        """The shape of a field or element of type ``t``: "?" where the port cannot print it as
        Go does (rt prints "?" there: docs/PORT.md)."""
        try:
            return self.fmt_shape(t, False)
        except Unprintable:
            return "?"

    def field_shapes(self, s) -> tuple:
        """``_go_fmt_``: (python name, Go name, shape) of each field; "?" where the port cannot
        print it (a sync value, another package's type, a channel, a named non-struct type with
        Error/String); below an unexported field fmt calls no Error/String (no_calls)."""
        return tuple((pname, gname, self.fmt_inner(ty["T"]) if gname[:1].isupper() else no_calls(self.fmt_inner(ty["T"])))
                     for gname, pname, ty, _ in s.fields)

    def iface_shape(self, name: str) -> str | None:
        """``_go_iface_``: which of T and *T the package puts in interfaces (None: neither or both)."""
        ts = {ent["T"] for ent in self.iface}
        if (name in ts) == (f"*{name}" in ts):
            return None
        if f"*{name}" in ts:
            return "p"
        return "vm" if self.fmt_methods(name)[0] else "v"

    def iface_fmt_problem(self) -> str | None:
        """Why an interface value the package formats might hold a struct the port cannot print."""
        for ent in self.iface:
            name = ent["T"].lstrip("*")
            if name not in self.structs or self.fmt_methods(name)[0]:
                continue  # not a struct, or one whose Error/String fmt calls for T and *T alike
            if self.iface_shape(name) is None:
                return f"struct {name} is put in interfaces both as {name} and *{name} (the port cannot tell which an interface holds)"
        return None  # a field the port cannot print prints as "?" (rt.fmt_shaped; docs/PORT.md)

    def fmt_arg(self, a, text: str) -> str:
        """Argument node ``a`` (translated ``text``) of a fmt call, wrapped in its shape."""
        u = a.get("U")
        if "Box" in a and (u not in ("map", "slice", "array") or any(
                m["Name"]["Name"] in ("Error", "String") for m in self.named.get(a.get("T", ""), {}).get("methods", ()))):
            return text  # a named non-struct type: its box prints it (rt.fmt_v: Error, String, a number)
        if u == "interface":
            if not hasattr(self, "_iface_fmt"):
                self._iface_fmt = self.iface_fmt_problem()
            if self._iface_fmt:
                return self.bad(a, f"fmt of an interface value where {self._iface_fmt}",
                                "print the fields you need one by one")
            return text
        if u not in ("struct", "ptrstruct", "map", "slice", "array"):
            return text
        try:
            d = self.fmt_shape(a.get("T", ""))
        except Unprintable as e:
            return self.bad(a, f"fmt of {a.get('T')}: the port cannot print {e} as Go does", "print the fields you need one by one")
        gotype = re.sub(r"\b[A-Za-z_]\w*\b", lambda m: f"{self.pkg}.{m[0]}" if m[0] in self.structs else m[0], a.get("T", ""))
        return f"rt.fmt_as({text}, {d!r}, {gotype!r})"
