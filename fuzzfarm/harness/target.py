"""Which harness a job or a collector step runs, and how a child process finds it.

The public API takes registered harness names (a submit never carries code or a path).
fuzzfarm's own tests also pass a ``HarnessInfo`` for a harness module that is not registered;
child processes then get ``--module=MOD`` and a PYTHONPATH entry that makes it importable.
"""

from __future__ import annotations

import dataclasses
import os
import threading

from fuzzfarm import harness as H

# "AST constructor recursion depth mismatch" (SystemError) when two threads parse at once: seen in
# benchmarks/farm_scaling.py's two bare jobs; the collector's threads (farm/triage_ahead.py) resolve
# harnesses side by side too.
_PARSE_LOCK = threading.Lock()


@dataclasses.dataclass(frozen=True)
class Target:
    """A harness as a job runs it: name, module, file, whether it is registered, and the
    campaign's starvation bound for its children."""

    name: str
    module: str
    path: str  # absolute path of the harness file (what atheris runs)
    registered: bool
    # The campaign's starvation bound as its children get it (FUZZFARM_MAX_STARVATION_S text:
    # seconds or "none"); None: the campaign set none, the worker's own setting applies.
    max_starvation: str | None = None

    def info(self) -> H.HarnessInfo:
        return H.HarnessInfo(self.name, self.module)

    def load(self):
        """Import the harness module (raises HarnessError with a clear message)."""
        return self.info().load()

    def child_args(self) -> list[str]:
        """Extra argv for ``python -m fuzzfarm.runone`` / collector / walk children: the module,
        always. The parent has resolved (and, for a registered name, checked) it; a child that had
        to look the name up again would import ``importlib.metadata`` and scan every installed
        distribution's entry points, the largest share of its start-up (docs/BENCHMARKS.md#startup)."""
        return [f"--module={self.module}"]

    def with_max_starvation(self, bound) -> "Target":
        """This target with starvation bound ``bound`` for its children: seconds, ``"none"``
        (no bound in time), or None (keep the worker's setting). ValueError for a bad value."""
        if bound is None or bound == "":
            return self
        return dataclasses.replace(self, max_starvation=H.max_starvation_text(H.parse_max_starvation(bound)))

    def child_env(self, extra: dict | None = None) -> dict:
        """``process.child_env`` for a child that runs this harness: its PYTHONPATH entry and
        the campaign's starvation bound (over the worker's, which the allow-list passes on)."""
        from fuzzfarm.harness import child as process
        bound = {} if self.max_starvation is None else {H.MAX_STARVATION_ENV: self.max_starvation}
        return process.child_env({**bound, **(extra or {})}, pythonpath=self.pythonpath)

    def declared(self, name: str):
        """The literal value of the module-level assignment ``name = ...`` in the harness source,
        or of the matching keyword of its ``declare(...)`` call (``VARIANTS`` -> ``variants=``,
        ``FIXED_MAY_FAIL`` -> ``fixed_may_fail=``; a keyword naming a module-level constant is
        followed), read without importing it (a worker never imports harness code);
        ``frozenset(...)``, ``set(...)`` and ``tuple(...)`` around a literal are unwrapped. None
        when the source cannot be read, has no such assignment, or it is not a literal."""
        import ast  # here: a walk child never reads a declaration (docs/BENCHMARKS.md#startup)

        try:
            with open(self.path, encoding="utf-8") as f:
                source = f.read()
            with _PARSE_LOCK:  # CPython 3.11: ast.parse in two threads at once can raise SystemError
                tree = ast.parse(source)
        except (OSError, SyntaxError, ValueError):
            return None
        assigned = {t.id: node.value for node in tree.body if isinstance(node, ast.Assign)
                    for t in node.targets if isinstance(t, ast.Name)}
        value = assigned.get(name)
        if value is None:
            value = _declare_keyword(tree, name.lower())
            if isinstance(value, ast.Name):
                value = assigned.get(value.id)
        return None if value is None else _literal(value)

    def declared_variants(self) -> tuple[str, ...] | None:
        """``VARIANTS`` from the harness source (see :meth:`declared`), or None."""
        value = self.declared("VARIANTS")
        return tuple(value) if isinstance(value, (tuple, list)) else None

    def fixed_may_fail(self) -> frozenset[str]:
        """``FIXED_MAY_FAIL``: the failures the harness declares reachable by its fixed variant
        too (upstream hazards the fix does not touch), each a signature ``kind at f1 <- f2 <-
        f3`` (:func:`fuzzfarm.harness.signature.hazard_name`): the one form the proof, the fix verdict,
        the fix fuzz, CI and the web view all match. Raises HarnessError (one line) for any
        other entry, a bare kind above all: a kind alone would hide any new bug of that kind
        the fix brings (``fuzzfarm.harness.fixed_may_fail_error``)."""
        value = self.declared("FIXED_MAY_FAIL")
        if value is None:
            return frozenset()
        bad = H.fixed_may_fail_error(value, self.name)
        if bad:
            raise H.HarnessError(bad)
        from fuzzfarm.harness.signature import hazard_name
        # normalized as a failure's hazard_name is, so "f1 <- f2" written with spaces matches
        return frozenset(hazard_name(k, s.split(" <- ")) for k, _, s in (v.partition(" at ") for v in value))

    def kept_by_fix(self, kind: str, crash_state) -> bool:
        """Whether failure ``kind`` at ``crash_state`` is a hazard the fix keeps (see
        :meth:`fixed_may_fail`): a reproducer of it that passes on ``fixed`` only shows that its
        schedule does not carry over; that failure on ``fixed`` is no news."""
        from fuzzfarm.harness.signature import hazard_name
        return hazard_name(kind, crash_state) in self.fixed_may_fail()

    def check_variant(self, variant: str) -> str | None:
        """An error sentence when ``variant`` is not declared by the harness, else None."""
        variants = self.declared_variants()
        if variants is not None and variant not in variants:
            return f"harness {self.name!r} has no variant {variant!r}; choose one of {', '.join(variants)}"
        return None

    @property
    def pythonpath(self) -> str | None:
        """sys.path entry a child needs to import an unregistered module (None if registered)."""
        if self.registered:
            return None
        root = os.path.dirname(self.path)
        for _ in range(self.module.count(".")):
            root = os.path.dirname(root)
        return root


def _declare_keyword(tree, keyword: str):
    """The ``keyword=`` argument (an AST node) of the module-level ``declare(...)`` call, or None."""
    import ast

    for node in tree.body:
        call = node.value if isinstance(node, (ast.Assign, ast.Expr)) else None
        if isinstance(call, ast.Call):
            fn = call.func
            fname = fn.id if isinstance(fn, ast.Name) else fn.attr if isinstance(fn, ast.Attribute) else None
            if fname == "declare":
                for kw in call.keywords:
                    if kw.arg == keyword:
                        return kw.value
    return None


def _literal(value):
    import ast

    if (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
            and value.func.id in ("frozenset", "set", "tuple") and len(value.args) == 1):
        value = value.args[0]
    try:
        return ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError):
        return None


def resolve(harness, max_starvation=None) -> Target:
    """A registered name, or a ``HarnessInfo`` (tests), as a :class:`Target`; with
    ``max_starvation`` (see :meth:`Target.with_max_starvation`) its children run under that bound.

    Raises HarnessError for an unknown name or a module that is not installed.
    """
    if isinstance(harness, Target):
        return harness.with_max_starvation(max_starvation)
    if isinstance(harness, H.HarnessInfo):
        registered = H.registry().get(harness.name) == harness
        target = Target(harness.name, harness.module, os.path.abspath(harness.path), registered)
    else:
        info = H.get(harness)
        target = Target(info.name, info.module, os.path.abspath(info.path), True)
    return target.with_max_starvation(max_starvation)


def from_child_args(name: str, module: str | None) -> Target:
    """Inverse of :meth:`Target.child_args` inside a child process."""
    if module:
        info = H.HarnessInfo(name, module)
        return Target(name, module, os.path.abspath(info.path), False)
    return resolve(name)
