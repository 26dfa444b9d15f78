"""The translator's part for Go's value types beyond structs (docs/PORT.md): named non-struct
types and their methods, arrays, and struct or array values read out of maps.

* A named non-struct type with methods (``type set map[string]struct{}``, ``type handlerFunc
  chan interface{}``, ``type and []Selector``, ``type Frame [8]byte``) becomes a class holding its
  methods, each taking the value itself as its receiver: a call on a value of the type is
  static (``set.has(s, k)``), as Go's is. Its values stay what their underlying type makes them
  (a ``gosim.Map``, a ``gosim.Chan``, an ``rt.Slice``, a function, a number), so a map, channel or
  slice receiver shares the object as Go's header does. Where goast sees such a value put in an
  interface (``Box``), the value is boxed (``rt.Named``): the box answers the calls through the
  interface and tells the type from its underlying one in type assertions and switches, which
  unbox it.
* An array ``[N]T`` is an ``rt.Array``: a value, copied where Go copies (assignment, arguments,
  results, range), written in place where Go writes into existing memory (a field, an element),
  its elements race-checked as a slice's.
* ``v, ok := m[k]`` of a map of structs or arrays copies the stored value (the zero value when
  missing), as Go does.

A mixin of :class:`fuzzfarm.goport.translate.Translator` (it uses its ``expr``/``val``/``bad``...)."""

from __future__ import annotations

import builtins
import keyword

from .nodes import walk


class ValueTypes:
    """Mixed into the Translator: named non-struct types (``named``), arrays, map copies."""

    # --- named non-struct types -------------------------------------------------------------
    def named_type_spec(self, s) -> bool:
        """Record ``type X <non-struct>`` (or an alias ``type X = Y``); False for what stays
        refused."""
        name = s["Name"]["Name"]
        if s.get("Alias"):
            return True  # another name for a type: go/types resolves it wherever it is used
        if s["U"] in ("func", "int", "string", "float", "bool", "map", "chan", "slice", "array", "ptrstruct", "pointer"):
            self.named.setdefault(name, {"spec": s, "methods": []})
            return True
        return False

    def named_method(self, d, base: str) -> bool:
        """Attach method ``d`` to named non-struct type ``base``; False when ``base`` is not one."""
        if base not in self.named:
            return False
        if d["Recv"]["List"][0]["Type"]["K"] == "StarExpr":
            self.bad(d, f"pointer-receiver method on non-struct type {base}",
                     "give it a value receiver, or make the type a struct (a pointer to a non-struct value is not modelled here)")
            return True
        self.named[base]["methods"].append(d)
        return True

    @staticmethod
    def named_py(name: str) -> str:
        """The Python class of a named type: its Go name, unless that hides a Python builtin."""
        return name + "_" if keyword.iskeyword(name) or hasattr(builtins, name) or name in ("gosim", "rt") else name

    def emit_named(self) -> None:
        """A class for each named non-struct type with methods (the methods take the value)."""
        for name, ent in self.named.items():
            if ent["spec"]["U"] in ("ptrstruct", "pointer"):
                continue  # no methods, never boxed: a pointer type's values are the objects
            s, u = ent["spec"], ent["spec"]["U"]
            py = self.named_py(name)
            meths = tuple(self.method_py(d["Name"]["Name"]) for d in ent["methods"])
            self.out += ["", "", f"class {py}(rt.Named):",
                         f'    """Go type {name} ({u}, {s["F"]}:{s["L"]}): its methods take the value itself ({py}.m(x, ...)); '
                         'a value put in an interface is boxed (rt.Named)."""', "",
                         "    __slots__ = ()",
                         f"    _go_methods_ = {meths!r}",
                         f"    _go_name_ = {self.pkg + '.' + name!r}",
                         f"    _go_comparable_ = {u not in ('map', 'slice', 'func')}",
                         f"    _go_copy_ = {u == 'array'}"]
            st = self.struct_type(name, [], s["F"], s["L"])  # the receiver's container, as for a struct's methods
            st.kind = u
            for d in ent["methods"]:
                self.func_decl(d, st)

    def named_class(self, rtype: str) -> str | None:
        """The Python class (``set``, ``pkg_cache.and_``) of a named non-struct type with methods
        ``path.Name``, or None."""
        if "." not in rtype:
            return None
        path, name = rtype.rsplit(".", 1)
        if path == self.path:
            ent = self.named.get(name)
            return self.named_py(name) if ent is not None and ent["methods"] else None
        if path in self.mods.alias and (path, name) in self.mods.named_types:
            return f"{self.mods.alias[path]}.{self.named_py(name)}"
        return None

    def named_recv(self, f) -> tuple[str, str] | None:
        """(class, receiver) of a method selector ``x.M`` on a named non-struct type (not through an
        interface), the receiver evaluated as Go passes it (an array copied), else None."""
        if f.get("K") != "SelectorExpr" or f.get("SelK") != "method" or f["X"].get("U") == "interface":
            return None
        cls = self.named_class(f.get("RecvType") or "")
        if cls is None:
            return None
        x = f["X"]
        if f.get("Path"):  # promoted from an embedded field of a struct
            recv, u = self.embedded(self.expr(x), f), f["Path"][-1]["U"]
        else:
            recv, u = self.expr(x), x.get("U")
        if u == "array":
            recv += "._copy_()"  # a value receiver gets a copy, made in the caller
        return cls, recv

    def named_callee(self, f) -> tuple[str, list] | None:
        """``x.M(...)`` on a named non-struct type: (``Cls.m``, [receiver])."""
        r = self.named_recv(f)
        if r is None:
            return None
        return f"{r[0]}.{self.method_py(f['Sel']['Name'])}", [r[1]]

    def named_method_value(self, e) -> str | None:
        """``x.M`` as a value (not called): the receiver bound now (Go evaluates it there)."""
        r = self.named_recv(e)
        if r is None:
            return None
        return f"rt.bound({r[0]}.{self.method_py(e['Sel']['Name'])}, {r[1]})"

    def method_py(self, name: str) -> str:
        return self.snake_name(name)

    def box_class(self, b) -> str | None:
        """The class of named non-struct type ``b`` (goast's {"pkg", "name"}), methods or not."""
        if (b["pkg"], b["name"]) == ("time", "Duration"):
            return "rt.Duration"  # a standard type: its box in rt (fmt prints its String())
        if b["pkg"] == self.path:
            return self.named_py(b["name"]) if b["name"] in self.named else None
        if b["pkg"] in self.mods.alias and (b["pkg"], b["name"]) in self.mods.nonstruct_types:
            return f"{self.mods.alias[b['pkg']]}.{self.named_py(b['name'])}"
        return None

    def box(self, e) -> str:
        """A value of a named non-struct type put in an interface: boxed."""
        b = e["Box"]
        cls = self.box_class(b)
        inner = self.val({**e, "_unboxed": True})
        if cls is None:
            return self.bad(e, f"{b['name']} put in an interface", "port this by hand")
        return f"{cls}._box_({inner})"

    def box_check(self, t, v: str) -> str | None:
        """The Python test that interface value ``v`` holds named type ``t`` (a boxed one), or None."""
        b = t.get("NamedM")
        if b is None:
            return None
        cls = self.box_class(b)
        return f"type({v}) is {cls}" if cls else None

    def asserted(self, t, v: str) -> str:
        """The Go value of interface value ``v`` known to hold type ``t``: a box's value, a copy of
        a struct or array value (Go copies it out of the interface), else ``v`` itself."""
        if t.get("NamedM") and self.box_class(t["NamedM"]):
            return f"{v}._go_v_._copy_()" if t.get("U") == "array" else f"{v}._go_v_"
        if t.get("U") in ("struct", "array") and t.get("IsType"):
            return f"{v}._copy_()"
        if t.get("U") == "ptrstruct" and t.get("T") in self.nil_types or t.get("Cat", "").startswith("ptr:"):
            return f"rt.unnil({v})"  # a typed nil's value is the nil pointer
        return v

    def refuse_hidden(self) -> None:
        """A value to box or make a typed nil put in an interface by a multi-value call (``return
        f()``, ``a, b = f()``, ``g(f())``): no expression of its own to do it at, so refused."""
        for h in self.hidden:
            self.bad(h, f"a {h['T']} put in an interface by a multi-value call (it must be boxed or kept a typed nil there)",
                     "assign the call's results to variables first, then use them")

    # --- typed nils ---------------------------------------------------------------------------
    def typed_nil_value(self, e) -> str:
        """A pointer, slice, map, channel or func that may be nil put in an interface: Go's typed
        nil when it is (``rt.typed``), the value itself otherwise."""
        tn = e["TypedNil"]
        inner = self.val({**e, "_unboxed": True})
        el = tn.get("elem")
        cls = None
        if el is not None:
            cls = el["name"] if el["pkg"] == self.path else (f"{self.mods.alias[el['pkg']]}.{el['name']}" if el["pkg"] in self.mods.alias else None)
        return f"rt.typed({inner}, {cls}, {tn['Q']!r}, {tn['U']!r})"

    @property
    def nil_types(self) -> set:
        """The types whose nil values the package puts in interfaces (typed nils)."""
        if not hasattr(self, "_nil_types"):
            self._nil_types = {n["TypedNil"]["T"] for n in walk(self.files) if "TypedNil" in n}
        return self._nil_types

    def ptr_check(self, t, v: str) -> str | None:
        """``x.(*T)``'s test when nil *T values are put in interfaces: a typed nil of *T matches."""
        if t.get("U") == "ptrstruct" and t.get("T") in self.nil_types:
            return f"rt.is_ptr({v}, {t['Cat'].split(':', 1)[1]})"
        return None

    # the Python classes of a pointer to non-struct memory (rtptr): a variable's cell, a field's, an element's
    ptr_cells = ("gosim.Var", "rt.FieldPtr", "rt.ElemPtr")

    def ptr_cell_check(self, t, v: str) -> str:
        """``x.(*int)``, ``x.(*func())``: exact while interfaces hold one pointer-to-non-struct type
        (its cells, whichever memory they point to, or its typed nil)."""
        return f"(type({v}) in ({', '.join(self.ptr_cells)},) or type({v}) is rt.TypedNil and {v}.name == {t.get('Q')!r})"

    def iface_key(self, cat: str) -> str:
        """The Python type of IfaceTypes category ``cat`` in ``_GO_TYPES_``."""
        kind, _, name = cat.partition(":")
        if kind == "sync":
            return f"gosim.{name}"  # *sync.Mutex and co: gosim's objects
        if kind == "box" and name == "time.Duration":
            return "rt.Duration"
        return self.named_py(name) if kind == "box" else name

    # --- arrays -------------------------------------------------------------------------------
    def array_zero(self, z, node) -> str:
        return f"rt.new_array({z['n']}, lambda: {self.zero(z['elem'], node)})"

    def array_lit(self, e) -> str:
        """``[N]T{a, b}``, ``[...]T{...}``, ``[N]T{2: x}``: the given elements, zero values elsewhere."""
        n, ez = e.get("ALen"), e.get("EZ")
        if n is None or ez is None:
            return self.bad(e, f"composite literal of {e.get('T')}")
        items, i = [], 0
        for el in e["Elts"] or []:
            if el["K"] == "KeyValueExpr":
                k = el["Key"].get("Const")
                if k is None or not k.lstrip("-").isdigit():
                    return self.bad(el, "array literal index that is not an integer constant")
                i = int(k)
                el = el["Value"]
            items.append(f"{i}: {self.elem_val(el, ez)}")
            i += 1
        return f"rt.array_of({n}, lambda: {self.zero(ez, e)}, {{{', '.join(items)}}})"

    def elem_val(self, el, ez) -> str:
        """A composite literal element whose type is elided (``{1, 2}`` for a struct element)."""
        return self.val(el)

    # --- struct and array values out of maps --------------------------------------------------
    def map_lookup(self, r) -> str | None:
        """``v, ok := m[k]`` of a map of structs or arrays: a copy of the stored value (Go copies
        it out of the map), the zero value when missing; None for other maps."""
        if r["VZ"]["k"] not in ("struct", "array", "foreign") or r["VZ"].get("name") == "time.Time":
            return None
        return f"rt.mlookup_copy({self.expr(r['X'])}, {self.map_key(r['Index'], r['X'])}, lambda: {self.zero(r['VZ'], r)})"

