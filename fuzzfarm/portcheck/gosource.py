"""The Go functions of a source tree, as Go's own parser sees them.

``gofuncs.go`` (shipped beside this module, stdlib only) is run with ``go run`` through
:mod:`fuzzfarm.gotool`; it prints every function declaration and function literal with the
lines it spans, named as Go's runtime names them in a traceback (``Recv.Method``,
``Outer.func1``, ``Outer.func1.2``), and the ``// upstream:`` comment a Go twin puts above a
function.

Two kinds of tree:

* **a checkout** of the upstream code (no ``// upstream:`` comment anywhere): each function
  stands for itself, in its own file, at its own lines, in its ``package`` clause's package;
* **a Go twin** (``gotwins/<name>/``): only the functions that carry an ``// upstream: repo
  path/file.go:A-B @commit`` comment count, and each stands for upstream ``file.go`` lines A-B
  in the package named by the path's last directory (``.../util/checker/checker_map.go`` is
  package ``checker``). A function literal inside such a function is its ``funcN``; without a
  comment of its own it stands for its declaration's lines.
"""

from __future__ import annotations

import dataclasses
import json
import os
import posixpath
import re

from fuzzfarm import gotool

GOFUNCS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gofuncs.go")


class GoSourceError(Exception):
    """Go is missing, the directory does not exist, or a file does not parse. One line."""


@dataclasses.dataclass(frozen=True)
class GoFunction:
    """A Go function as citations name it: ``name`` is ``pkg.Func``, ``pkg.Recv.Method`` or
    ``pkg.Outer.funcN``; ``own`` how many trailing components a citation must give (all but
    the package); ``path`` the file (upstream's for a twin) spanning ``first``-``last``;
    ``at`` where it is in the tree read (``dir/file.go:line``)."""

    name: str
    own: int
    path: str
    first: int
    last: int
    at: str

    @property
    def file(self) -> str:
        return posixpath.basename(self.path)

    def span(self) -> str:
        return f"{self.file}:{self.first}-{self.last}"

    def named(self, cited: str) -> bool:
        """Whether citation name ``cited`` names this function: its dotted parts end this
        function's name and leave out at most the package (``objectChecker.Stop``,
        ``(*objectChecker).Stop`` and ``common.objectChecker.Stop`` name
        ``common.objectChecker.Stop``; ``Stop`` does not)."""
        want = _plain(cited).split(".")
        have = self.name.split(".")
        if not self.own <= len(want) <= len(have):
            return False
        return have[len(have) - len(want):] == want

    def covers(self, line: int) -> bool:
        return self.first <= line <= self.last


@dataclasses.dataclass
class GoSource:
    """The functions read from ``root``; ``twin``: whether it is a Go twin."""

    root: str
    twin: bool
    functions: list[GoFunction]

    def in_file(self, cited_file: str) -> list[GoFunction]:
        """The functions of the file a citation names: by base name, or by a path suffix when
        the citation gives directories (``cache/cache.go``)."""
        if "/" in cited_file:
            return [f for f in self.functions if f.path == cited_file or f.path.endswith("/" + cited_file)]
        return [f for f in self.functions if f.file == cited_file]


def _plain(name: str) -> str:
    """A name as a traceback spells it, in the form functions are listed in: ``(*T).M`` and
    ``T[...].M`` are ``T.M``."""
    return re.sub(r"\[[^\]]*\]", "", re.sub(r"\(\*(\w+)\)", r"\1", name))


def _upstream_function(fn: dict, up: dict, twin_file: str) -> GoFunction:
    pkg = posixpath.basename(posixpath.dirname(up["path"])) or up["repo"].rsplit("/", 1)[-1]
    name = f"{pkg}.{fn['name']}"
    return GoFunction(name, len(name.split(".")) - 1, up["path"], up["first"], up["last"], f"{twin_file}:{fn['start']}")


def read(root: str, tags: tuple[str, ...] = ()) -> GoSource:
    """Every function under ``root`` whose file builds with ``tags``. Raises GoSourceError."""
    if not os.path.isdir(root):
        raise GoSourceError(f"no such directory: {root} (--go-src wants a directory of Go source: a twin or a checkout)")
    args = ["run", GOFUNCS] + (["-tags", ",".join(tags)] if tags else []) + [os.path.abspath(root)]
    try:
        p = gotool.run_go(args, cwd=os.path.dirname(GOFUNCS), timeout=300)
    except FileNotFoundError as e:
        raise GoSourceError(str(e)) from None
    try:
        data = json.loads(p.stdout.strip().splitlines()[-1]) if p.stdout.strip() else None
    except json.JSONDecodeError:
        data = None
    if isinstance(data, dict) and "error" in data:
        raise GoSourceError(f"cannot read the Go source under {root}: {data['error']}")
    if p.returncode != 0 or not isinstance(data, list):
        last = (p.stderr.strip().splitlines() or ["no output"])[-1]
        raise GoSourceError(f"listing the Go functions under {root} failed: {last}")
    twin = any(fn.get("upstream") for f in data for fn in f["funcs"])
    out: list[GoFunction] = []
    for f in data:
        where = posixpath.join(os.path.basename(os.path.abspath(root)), f["path"])
        if not twin:
            for fn in f["funcs"]:
                name = f"{f['package']}.{fn['name']}"
                out.append(GoFunction(name, len(name.split(".")) - 1, f["path"], fn["start"], fn["end"],
                                      f"{where}:{fn['start']}"))
            continue
        decls = {fn["name"]: fn for fn in f["funcs"] if not fn.get("parent")}
        for fn in f["funcs"]:
            up = fn.get("upstream")
            parent = decls.get(fn.get("parent") or "")
            if up is None and parent is not None:
                up = parent.get("upstream")  # a literal without its own comment: its declaration's lines
            if up is not None:
                out.append(_upstream_function(fn, up, where))
    return GoSource(root, twin, out)


# The builds a tree is read under: the default one and a twin's fixed variant. A port cites the
# buggy revision's lines; the few functions only the fixed revision has (prow's options
# callback) are found in the fixed variant's files.
VARIANT_TAGS: tuple[tuple[str, ...], ...] = ((), ("fixed",))


def read_variants(root: str, tag_sets: tuple[tuple[str, ...], ...] = VARIANT_TAGS) -> GoSource:
    """The functions of ``root`` under every build in ``tag_sets``, each once."""
    sources = [read(root, tags) for tags in tag_sets]
    seen: set = set()
    out: list[GoFunction] = []
    for src in sources:
        for fn in src.functions:
            key = (fn.name, fn.path, fn.first, fn.last)
            if key not in seen:
                seen.add(key)
                out.append(fn)
    return GoSource(root, any(s.twin for s in sources), out)
