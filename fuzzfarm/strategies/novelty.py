"""Distinct schedules: keep a seeded walk (``random``, ``pct``, ``mix``) from re-running a
schedule it already ran in this process (docs/STRATEGIES.md#distinct-schedules).

:class:`FreshSchedules` wraps the walk's strategy and keeps a tree of the decision sequences
run so far, one tree per scenario (the input bytes outside the schedule region, told by
``harness.execute_scenario`` through :meth:`FreshSchedules.scenario`). A node knows how many
options its decision had; a subtree is *exhausted* when every run below it has been run: the
node of a finished run's last decision is a leaf, and a node whose options all lead to
exhausted subtrees is exhausted. When the inner strategy picks an option whose subtree is
exhausted, that run could only repeat one already run, so the wrapper picks instead, from its
own seeded RNG, among the options not exhausted. It never steers away from an option with a
run below it that was not run (tests/strategies/test_novelty.py checks that against a full
enumeration).

Same program + same scenario + same decisions = the same run (the runtime is deterministic),
so this is exact, not a heuristic. A scenario's tree is built the second time it comes (the
first run keeps only its decisions and option counts, for the last ``MAX_PENDING`` scenarios):
a harness whose random events rarely repeat a scenario pays almost nothing. Where a run leaves
the tree, the rest of it is kept as one node holding its (options, choices) bytes (a *tail*),
expanded a node at a time only when a later run walks into it: a random walk's runs part early,
so a run costs a node or two instead of one per decision (per-run node objects were most of the
tree's cost, in allocation and in the garbage collector's passes over them). The answers are
those of the one-node-per-decision tree (tests/strategies/test_novelty_tree.py). The trees are
capped at ``max_nodes`` nodes (a tail's ``TAIL_PER_NODE`` decisions counting as one); past the
cap new runs are no longer tracked (counted in ``untracked``) and the walk goes on as before.

:class:`SeenSchedules` counts distinct schedules exactly (a set of 16-byte digests of
scenario + decisions), for the ``distinct`` stat.
"""

from __future__ import annotations

import hashlib
import random

MAX_NODES = 400_000
MAX_SEEN = 2_000_000
# Scenarios seen once keep only their run's (options, choice) bytes until they come again, at
# most this many: a harness whose events are random rarely repeats a scenario, and must not pay
# a tree per run.
MAX_PENDING = 4096
# A tail (the rest of one run below a node, two bytes per decision) counts one node per this
# many decisions towards ``max_nodes``: about the memory of a node object and its dict.
TAIL_PER_NODE = 128


class _Node:
    """A decision of the tree. A node may stand for a whole chain below it: ``tail`` holds the
    (options, choices) bytes of the one run that went on from here, from index ``pos``; the
    chain is expanded one node at a time when a later run walks into it (``_expand``). A
    node with no tail and no decision seen (``n == 0``) is a leaf when ``done``."""

    __slots__ = ("n", "kids", "done", "tail", "pos")

    def __init__(self):
        self.n = 0          # options of this decision (0: no decision seen here yet)
        self.kids: dict[int, _Node] | None = None  # made when the first kid is
        self.done = False   # every run below this node has been run
        self.tail: tuple[bytes, bytes] | None = None
        self.pos = 0


def _below(options: bytes, choices: bytes, pos: int) -> _Node:
    """The node after ``pos`` decisions of the recorded run: its leaf (done) at the end, else a
    chain node holding the rest. Not done before the end: every decision has >= 2 options
    (the strategy contract, strategies/base.py), so the one run below is not all of them."""
    node = _Node()
    if pos == len(options):
        node.done = True
    else:
        node.tail = (options, choices)
        node.pos = pos
    return node


class FreshSchedules:
    """Wrap ``inner`` (a strategy). ``seed`` seeds the RNG of the wrapper's own picks."""

    def __init__(self, inner, seed: int, max_nodes: int = MAX_NODES):
        self.inner = inner
        self.rng = random.Random(f"fresh:{seed}")
        self.max_nodes = max_nodes
        self.nodes = 0  # size of the trees: node objects, plus one per TAIL_PER_NODE tail decisions
        self.roots: dict[bytes, _Node] = {}
        self.pending: dict[bytes, tuple[bytes, bytes]] = {}  # insertion order: oldest first
        self._rec: tuple[bytearray, bytearray] | None = None  # a first sighting's whole run
        self._grow: tuple[bytearray, bytearray] | None = None  # the run past where it left the tree
        self._off = None  # (append option count, append choice) of the recording in use, if any
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
        self._grow = None
        self._off = None
        root = self.roots.get(self._key)
        if root is None and self._key in self.pending:
            root = self._materialize(*self.pending.pop(self._key))
        elif root is None and self.nodes < self.max_nodes:  # first sighting: record the path only
            self._rec = (bytearray(), bytearray())
            self._off = (self._rec[0].append, self._rec[1].append)
        self._cur, self._path, self._open = root, [], True
        if root is None and self._rec is None:
            self.untracked += 1
        self.inner.begin(rt)

    def _materialize(self, options: bytes, choices: bytes) -> _Node | None:
        """The tree of a scenario seen once before, holding that one run (one chain node)."""
        cost = 1 + len(options) // TAIL_PER_NODE
        if self.nodes + cost > self.max_nodes:
            return None
        root = self.roots[self._key] = _below(options, choices, 0)
        self.nodes += cost
        return root

    def _expand(self, node: _Node) -> None:
        """Turn a chain node into a decision with its one kid (the chain's next node)."""
        options, choices = node.tail
        pos = node.pos
        node.tail = None
        node.n = options[pos]
        node.kids = {choices[pos]: _below(options, choices, pos + 1)}
        self.nodes += 1

    def finish(self) -> bool | None:
        """The run that just ended: mark it run. Returns False when it repeated a run already
        marked (only possible once its scenario is exhausted), True when new, None when it was
        not tracked or there is no open run."""
        if not self._open:
            return None
        self._open = False
        self._off = None
        if self._rec is not None:  # first sighting of this scenario: new by definition
            self.pending[self._key] = (bytes(self._rec[0]), bytes(self._rec[1]))
            self._rec = None
            while len(self.pending) > MAX_PENDING:
                del self.pending[next(iter(self.pending))]
            return True
        leaf = self._cur
        if leaf is None:
            return None
        grow = self._grow
        if grow is not None:  # the run left the tree at ``leaf`` (a new node): it hangs its rest there
            self._grow = None
            if grow[0]:
                cost = len(grow[0]) // TAIL_PER_NODE
                if self.nodes + cost > self.max_nodes:
                    self.untracked += 1  # ``leaf`` stays an unknown node (n == 0, not done)
                    return None
                self.nodes += cost
                leaf.tail = (bytes(grow[0]), bytes(grow[1]))
                # a chain is never done (see _below), so nothing above it becomes done; the root
                # is done only if a nondeterministic program left an exhausted tree
                if self.roots.get(self._key) is not None and self.roots[self._key].done:
                    self.exhausted_scenarios += 1
                return True
        new = not leaf.done
        leaf.done = True
        for node in reversed(self._path):
            kids = node.kids
            if node.done or len(kids) < node.n:
                break
            for k in kids.values():
                if not k.done:
                    break
            else:
                node.done = True
                continue
            break
        if self.roots.get(self._key) is not None and self.roots[self._key].done and new:
            self.exhausted_scenarios += 1
        return new

    def scenario_exhausted(self) -> bool:
        """Every schedule of the current scenario has been run."""
        root = self.roots.get(self._key)
        return root is not None and root.done

    # -- decisions ----------------------------------------------------------------------------
    def _steer(self, m: int, choice: int) -> int:
        off = self._off
        if off is not None:  # off the tree: record the rest of the run
            off[0](m)
            off[1](choice)
            return choice
        node = self._cur
        if node is None:
            return choice
        if node.tail is not None:
            self._expand(node)
        if node.n != m:
            if node.n:
                self.mismatches += 1
                node.kids = {}
                node.done = False
            node.n = m
        kids = node.kids
        if kids is None:
            kids = node.kids = {}
        kid = kids.get(choice)
        if kid is not None and kid.done and not node.done:
            free = []
            for i in range(m):
                k = kids.get(i)
                if k is None or not k.done:
                    free.append(i)
            choice = free[self.rng.randrange(len(free))]
            kid = kids.get(choice)
            self.steered += 1
        if kid is None:
            if self.nodes >= self.max_nodes:
                self._cur = None
                self.untracked += 1
                return choice
            kid = kids[choice] = _Node()
            self.nodes += 1
            self._grow = (bytearray(), bytearray())  # the rest of the run hangs from ``kid``
            self._off = (self._grow[0].append, self._grow[1].append)
        self._path.append(node)
        self._cur = kid
        return choice

    def pick(self, runnable, current, timer: bool) -> int:
        # ``_steer``'s two common cases inline (one call per decision saved): off the tree, and
        # a known decision whose chosen kid is not exhausted (no expansion, steering or growth)
        choice = self.inner.pick(runnable, current, timer)
        m = len(runnable) + (1 if timer else 0)
        off = self._off
        if off is not None:
            off[0](m)
            off[1](choice)
            return choice
        node = self._cur
        if node is not None and node.n == m and node.tail is None and node.kids is not None:
            kid = node.kids.get(choice)
            if kid is not None and not kid.done:
                self._path.append(node)
                self._cur = kid
                return choice
        return self._steer(m, choice)

    def pick_yield(self, runnable, current, timer: bool) -> int:
        inner = getattr(self.inner, "pick_yield", None) or self.inner.pick
        return self._steer(len(runnable) + (1 if timer else 0), inner(runnable, current, timer))

    def pick_index(self, n: int, what: str) -> int:
        return self._steer(n, self.inner.pick_index(n, what))

    def __getattr__(self, name):  # step / depth / weights of the inner strategy (benchmarks, stats)
        if name == "inner":  # not set yet (copy, unpickling): no recursion
            raise AttributeError(name)
        return getattr(self.inner, name)


class SeenSchedules:
    """Exact count of distinct (scenario, decisions) pairs, up to ``cap`` entries."""

    def __init__(self, cap: int = MAX_SEEN):
        self.seen: set[bytes] = set()
        self.cap = cap
        self.full = False

    def add(self, scenario: bytes, decisions: bytes) -> bool:
        """Record one run; True when its schedule was not seen before (or the set is full)."""
        h = hashlib.blake2b(digest_size=16)
        h.update(len(scenario).to_bytes(4, "little"))
        h.update(scenario)
        h.update(decisions)
        d = h.digest()
        if d in self.seen:
            return False
        if len(self.seen) >= self.cap:
            self.full = True
            return True
        self.seen.add(d)
        return True
