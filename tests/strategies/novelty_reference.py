"""The distinct-schedule tree as it was before path compression (one node per decision), kept as
the reference model: tests/strategies/test_novelty_tree.py checks that the compressed tree in
fuzzfarm/strategies/novelty.py gives the same answers (every steered choice, every finish
verdict) on random decision sequences."""

from __future__ import annotations

import random

MAX_NODES = 400_000
MAX_PENDING = 4096


class _Node:
    __slots__ = ("n", "kids", "done")

    def __init__(self):
        self.n = 0          # options of this decision (0: no decision seen here yet)
        self.kids: dict[int, _Node] = {}
        self.done = False   # every run below this node has been run


class ReferenceFreshSchedules:
    """Wrap ``inner`` (a strategy). ``seed`` seeds the RNG of the wrapper's own picks."""

    def __init__(self, inner, seed: int, max_nodes: int = MAX_NODES):
        self.inner = inner
        self.rng = random.Random(f"fresh:{seed}")
        self.max_nodes = max_nodes
        self.nodes = 0
        self.roots: dict[bytes, _Node] = {}
        self.pending: dict[bytes, tuple[bytes, bytes]] = {}  # insertion order: oldest first
        self._rec: tuple[bytearray, bytearray] | None = None
        self._key = b""
        self._cur: _Node | None = None
        self._path: list[_Node] = []
        self._open = False
        self.steered = 0      # decisions where the inner choice led to an exhausted subtree
        self.mismatches = 0   # a node seen with another option count (a nondeterministic program)
        self.untracked = 0    # runs not tracked (tree full)
        self.exhausted_scenarios = 0
        self.observer = getattr(inner, "observer", None)

    # -- what the harness and the walk tell us ------------------------------------------------
    def scenario(self, key: bytes) -> None:
        """The next run's scenario bytes (called before ``begin``)."""
        self._key = bytes(key)

    def begin(self, rt) -> None:
        self.finish()
        self._rec = None
        root = self.roots.get(self._key)
        if root is None and self._key in self.pending:
            root = self._materialize(*self.pending.pop(self._key))
        elif root is None and self.nodes < self.max_nodes:  # first sighting: record the path only
            self._rec = (bytearray(), bytearray())
        self._cur, self._path, self._open = root, [], True
        if root is None and self._rec is None:
            self.untracked += 1
        self.inner.begin(rt)

    def _materialize(self, options: bytes, choices: bytes) -> _Node | None:
        """The tree of a scenario seen once before, holding that one run."""
        if self.nodes + len(options) + 1 > self.max_nodes:
            return None
        root = node = self.roots[self._key] = _Node()
        for m, c in zip(options, choices):
            node.n = m
            kid = _Node()
            node.kids[c] = kid
            node = kid
        node.done = True
        self.nodes += len(options) + 1
        return root

    def finish(self) -> bool | None:
        """The run that just ended: mark it run. Returns False when it repeated a run already
        marked (only possible once its scenario is exhausted), True when new, None when it was
        not tracked or there is no open run."""
        if not self._open:
            return None
        self._open = False
        if self._rec is not None:  # first sighting of this scenario: new by definition
            self.pending[self._key] = (bytes(self._rec[0]), bytes(self._rec[1]))
            self._rec = None
            while len(self.pending) > MAX_PENDING:
                del self.pending[next(iter(self.pending))]
            return True
        leaf = self._cur
        if leaf is None:
            return None
        new = not leaf.done
        leaf.done = True
        for node in reversed(self._path):
            if node.done or len(node.kids) < node.n or not all(k.done for k in node.kids.values()):
                break
            node.done = True
        if self.roots.get(self._key) is not None and self.roots[self._key].done and new:
            self.exhausted_scenarios += 1
        return new

    def scenario_exhausted(self) -> bool:
        """Every schedule of the current scenario has been run."""
        root = self.roots.get(self._key)
        return root is not None and root.done

    # -- decisions ----------------------------------------------------------------------------
    def _steer(self, m: int, choice: int) -> int:
        if self._rec is not None:
            self._rec[0].append(m)
            self._rec[1].append(choice)
            return choice
        node = self._cur
        if node is None:
            return choice
        if node.n != m:
            if node.n:
                self.mismatches += 1
                node.kids = {}
                node.done = False
            node.n = m
        kid = node.kids.get(choice)
        if kid is not None and kid.done and not node.done:
            free = [i for i in range(m) if not (i in node.kids and node.kids[i].done)]
            choice = free[self.rng.randrange(len(free))]
            kid = node.kids.get(choice)
            self.steered += 1
        if kid is None:
            if self.nodes >= self.max_nodes:
                self._cur = None
                self.untracked += 1
                return choice
            kid = node.kids[choice] = _Node()
            self.nodes += 1
        self._path.append(node)
        self._cur = kid
        return choice

    def pick(self, runnable, current, timer: bool) -> int:
        return self._steer(len(runnable) + (1 if timer else 0), self.inner.pick(runnable, current, timer))

    def pick_yield(self, runnable, current, timer: bool) -> int:
        inner = getattr(self.inner, "pick_yield", None) or self.inner.pick
        return self._steer(len(runnable) + (1 if timer else 0), inner(runnable, current, timer))

    def pick_index(self, n: int, what: str) -> int:
        return self._steer(n, self.inner.pick_index(n, what))

    def __getattr__(self, name):  # step / depth / weights of the inner strategy (benchmarks, stats)
        if name == "inner":  # not set yet (copy, unpickling): no recursion
            raise AttributeError(name)
        return getattr(self.inner, name)
