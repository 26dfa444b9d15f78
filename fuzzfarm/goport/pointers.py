"""The translator's rules for pointers to non-struct memory and the ``sync/atomic`` functions
on them (docs/PORT.md, "Pointers"); a mixin of :class:`translate.Translator`.

A pointer to a struct is the struct's object (translate.py). A pointer to anything else is a
reference to the race-checked cell the memory is in the port (``rtptr``): a local variable or
parameter whose address is taken lives in a ``gosim.Var`` (as a captured and assigned one
does), a package var already is one, ``&s.f`` is the field's ``rt.field_ptr``, ``&xs[i]`` the
element's ``rt.elem_ptr``, ``new(T)`` a fresh ``gosim.Var``. ``*p`` is ``p.load()``, ``*p = v``
``p.store(v)``. What cannot be exact is refused with the line (pointers to arrays, to sync
values by dereference, to a three-clause loop variable, ``unsafe.Pointer`` atomics).
"""

from __future__ import annotations

import re

from .nodes import walk

_ATOMIC_FUNC = re.compile(r"(Add|Load|Store|Swap|CompareAndSwap|And|Or)(Int32|Int64|Uint32|Uint64|Uintptr|Pointer)\Z")
_WIDTH = {"Int32": (32, True), "Int64": (64, True), "Uint32": (32, False), "Uint64": (64, False), "Uintptr": (64, False)}
# what a pointer may point to and be dereferenced as a plain cell (goast's kind of the element)
_CELL_ELEMS = {"int", "float", "string", "bool", "pointer", "ptrstruct", "slice", "map", "chan", "func", "interface",
               "time.Time", "time.Duration", "context.Context"}


def _unparen(x):
    while x.get("K") == "ParenExpr":
        x = x["X"]
    return x


def addressed_vars(body) -> set:
    """The object ids of the variables ``&x`` takes the address of, where ``x`` is not a struct
    or sync value (those are objects already): they live in ``gosim.Var`` cells."""
    out = set()
    for n in walk(body):
        if n.get("K") == "UnaryExpr" and n["Op"] == "&":
            x = _unparen(n["X"])
            if x.get("K") == "Ident" and (x.get("Use") or {}).get("k") == "var" and not _is_object(x.get("U", "")):
                out.add(x["Use"]["id"])
    return out


def addressed_struct_vars(body) -> set:
    """The object ids of struct-typed variables whose address is taken, explicitly (``&x``) or by
    a pointer-method call (``x.M()`` is ``(&x).M()``): the object is the pointer, so assigning
    the variable must write it in place (``_set_``), or the pointer would keep the old value."""
    out = set()
    for n in walk(body):
        x = None
        if n.get("K") == "UnaryExpr" and n["Op"] == "&":
            x = _unparen(n["X"])
        elif n.get("K") == "SelectorExpr" and n.get("SelK") == "method" and n.get("PtrRecv"):
            x = _unparen(n["X"])
        if x is not None and x.get("K") == "Ident" and (x.get("Use") or {}).get("k") == "var" and x.get("U") == "struct":
            out.add(x["Use"]["id"])
    return out


def _is_object(u: str) -> bool:
    """A value that is a Python object whose identity is its address (a struct, a sync value)."""
    return u == "struct" or u.startswith(("sync.", "sync/atomic."))


class PointerRules:
    """Mixed into Translator: ``&x``, ``*p``, ``*p = v``, ``new(T)``, ``atomic.AddInt32(&x, 1)``."""

    def address_of(self, e) -> str:
        """``&x`` where ``x`` is not a composite literal, a struct or a sync value."""
        x = _unparen(e["X"])
        k = x.get("K")
        if k == "Ident":
            o = x.get("Use") or {}
            if o.get("k") == "global" and self.globals.get(o.get("id")) == "cell":
                return self.name_of(x)  # the package var's gosim.Var (its snake_case name)
            if o.get("k") == "var" and o.get("id") in self.fn.cells:
                return self.name_of(x)  # its gosim.Var (plan made every addressed local one)
            return self.bad(e, f"address of {x['Name']}")
        if k == "SelectorExpr" and x.get("SelK") == "field":
            owner = x["Path"][-1] if x.get("Path") else x["X"]  # promoted: the innermost embedded struct holds it
            t = owner.get("T", "").lstrip("*")
            ours = t in self.structs or "." in t and t.rsplit(".", 1)[0] in self.mods.alias
            if owner.get("U") not in ("struct", "ptrstruct") or not ours:
                # only the port's own structs have race-checked (gosim.Shared) fields to point to
                return self.bad(e, f"address of a field of {t}", "take the address of your own struct's fields")
            return f"rt.field_ptr({self.embedded(self.expr(x['X']), x)}, {self.field_name(x['Sel']['Name'])!r})"
        if k == "IndexExpr" and x["X"].get("U") == "slice":
            return f"rt.elem_ptr({self.expr(x['X'])}, {self.expr(x['Index'])})"
        if k == "StarExpr":
            return self.expr(x["X"])  # &*p is p (after Go's nil check, which the next *p does too)
        return self.bad(e, f"address of {k} of type {x.get('T')}", "take the address of a variable, a struct field or a slice element")

    def operand(self, x) -> str:
        """``x`` where its memory is used in place, not copied: a field selected from it, a
        pointer method called on it, its address taken. ``(*p).f`` and ``(*p).M()`` of a struct
        pointer are ``p.f`` and ``p.M()`` (``*p`` as a value is a copy, ``_copy_()``, and a write
        to a field of that copy was lost); anything else is ``expr(x)``."""
        y = _unparen(x)
        if y.get("K") == "StarExpr" and y["X"].get("Elem") == "struct":
            return self.expr(y["X"])
        return self.expr(x)

    def struct_var_target(self, x):
        """The lvalue of ``x = v`` for a struct variable whose address is taken: ('sattr_elem',
        x's object), written in place; else None."""
        o = x.get("Use") or {}
        if o.get("id") in self.fn.addressed_structs:
            return ("sattr_elem", self.expr(x))
        return None

    def cell_elem_ok(self, e, what: str) -> bool:
        elem = e["X"].get("Elem") if e["K"] == "StarExpr" else e.get("Elem")
        if elem in _CELL_ELEMS:
            return True
        self.bad(e, f"{what} of a pointer to {elem or e.get('T')}", "use a pointer to a struct, a plain variable or a field")
        return False

    def deref(self, e) -> str:
        """``*p`` of a pointer to a non-struct: a checked read of the cell."""
        if not self.cell_elem_ok(e, "dereference"):
            return "None"
        return f"{self.expr(e['X'])}.load()"

    def deref_target(self, x):
        """The lvalue of ``*p = v`` (``p`` to a non-struct): ('pstore', p)."""
        if not self.cell_elem_ok(x, "assignment through"):
            return ("name", "_")
        return ("pstore", self.expr(x["X"]))

    def new_cell(self, e, t) -> str:
        """``new(T)`` of a non-struct ``T``: a fresh cell with T's zero value (a sync or atomic
        value is its object, as a struct is)."""
        u = t.get("U", "")
        if _is_object(u):
            return self.zero(t["Z"], t)
        if u not in _CELL_ELEMS:
            return self.bad(e, f"new({t.get('T')})", "use new of a struct, a number, a string, a bool or a pointer")
        return f"rt.new_cell({'new(' + t.get('T', '') + ')'!r}, {self.zero(t['Z'], t)})"

    def atomic_call(self, e) -> str | None:
        """``atomic.AddInt32(&x, d)`` and the other ``sync/atomic`` functions on a pointer (None:
        not one of them). ``unsafe.Pointer``'s are refused (no types behind them)."""
        f = e["Fun"]
        if f.get("K") != "SelectorExpr" or (f["X"].get("Use") or {}).get("k") != "pkgname" or (f["X"].get("Use") or {}).get("pkg") != "sync/atomic":
            return None
        m = _ATOMIC_FUNC.match(f["Sel"]["Name"])
        if m is None:
            return None
        op, ty = m.groups()
        if ty == "Pointer":
            return self.bad(e, f"sync/atomic.{f['Sel']['Name']} (unsafe.Pointer)", "use atomic.Pointer[T]")
        bits, signed = _WIDTH[ty]
        a = [self.expr(x) for x in e["Args"] or []]
        w = f"{bits}, {signed}"
        form = {"Add": f"rt.atomic_add({a[0]}, {', '.join(a[1:])}, {w})",
                "Load": f"rt.atomic_load({a[0]})",
                "Store": f"rt.atomic_store({', '.join(a)}, {w})",
                "Swap": f"rt.atomic_swap({', '.join(a)}, {w})",
                "CompareAndSwap": f"rt.atomic_cas({', '.join(a)}, {w})",
                "And": f"rt.atomic_and({', '.join(a)}, {w})",
                "Or": f"rt.atomic_or({', '.join(a)}, {w})"}
        return form[op]
