"""The models registry of ``fuzzfarm port``: which Go import path is modelled by which Python code.

A generated port calls no Go: every imported package must be *modelled* on the gosim side. A
:class:`Model` says, for one import path, what each package-level function and value becomes
(a Python expression the generated module can evaluate), which arguments are ``time.Duration``
(int nanoseconds in a port, seconds in gosim), the methods of its types, and which Python
modules the generated port must import for it.

Where models come from, in this order (a later one for the same path replaces an earlier one):

1. the standard-library models below (``sync``, ``time``, ``context``, ``errors``, ``fmt``,
   ``testing``, ``runtime``, ``strconv``, ``log`` (:mod:`.golog`), ``strings`` (:mod:`.gostrings`),
   ``sort.Strings``/``sort.Ints`` (:mod:`.gosort`), ``net/http``'s ``Client`` and ``Transport`` (:mod:`.gohttp`),
   ``net`` and ``io`` (:mod:`.gonet`)),
   then the Kubernetes ones (:mod:`.k8s`);
2. entry points of the group ``fuzzfarm.gomodels`` of installed packages: each names a
   :class:`Model` or a list of them (``[project.entry-points."fuzzfarm.gomodels"]
   ratelimit = "mymodels.ratelimit:MODELS"``);
3. :func:`register`, for a program that calls the translator itself.

An import with no model is not refused: ``fuzzfarm port`` writes a *stub module* for it
(:func:`stub_source`) holding one function per Go function the package calls, each raising
``rt.StubNotFilled`` until the user replaces its body; the port command lists each stub on one
line. A harness whose port uses a stub that is still unfilled refuses to load (``rt.require_filled``),
so an unfilled stub can never show up as a bug found in the Go.
"""

from __future__ import annotations

import dataclasses
import re
from importlib import metadata

ENTRY_POINT_GROUP = "fuzzfarm.gomodels"


@dataclasses.dataclass(frozen=True)
class Model:
    """The gosim side of one Go import path.

    ``funcs``: Go name -> Python expression (``"gosim.sleep"``), as the generated module spells
    it; ``durations``: Go name -> indexes of its ``time.Duration`` arguments; ``values``: Go name
    of a package-level value -> Python expression; ``methods``: Go type (``"sync.Mutex"``) ->
    {Go method: Python method}; ``types``: Go struct type (``"strings.Builder"``) -> the Python
    class standing for it: called with no argument for its zero value, with the Go fields in
    snake_case as keywords for a composite literal (``wait.Backoff{Steps: 3}`` ->
    ``Backoff(steps=3)``), and its fields read as snake_case attributes; the class copies with
    ``_copy_()`` and assigns in place with ``_set_(v)`` as a generated struct does. ``imports``:
    lines the generated module needs for the expressions above
    (``"import mymodels.ratelimit as ratelimit_model"``)."""

    path: str
    funcs: dict = dataclasses.field(default_factory=dict)
    durations: dict = dataclasses.field(default_factory=dict)
    values: dict = dataclasses.field(default_factory=dict)
    methods: dict = dataclasses.field(default_factory=dict)
    imports: tuple = ()
    types: dict = dataclasses.field(default_factory=dict)


STDLIB = (
    Model("sync", funcs={"NewCond": "gosim.Cond"}, methods={
        "sync.Mutex": {"Lock": "lock", "Unlock": "unlock", "TryLock": "try_lock"},
        "sync.RWMutex": {"Lock": "lock", "Unlock": "unlock", "RLock": "rlock", "RUnlock": "runlock",
                         "TryLock": "try_lock", "TryRLock": "try_rlock", "RLocker": "rlocker"},
        "sync.Locker": {"Lock": "lock", "Unlock": "unlock"},
        "sync.Map": {"Load": "load", "Store": "store", "LoadOrStore": "load_or_store", "LoadAndDelete": "load_and_delete",
                     "Delete": "delete", "Swap": "swap", "CompareAndSwap": "compare_and_swap",
                     "CompareAndDelete": "compare_and_delete", "Range": "range_", "Clear": "clear"},  # rt.SyncMap
        "sync.WaitGroup": {"Add": "add", "Done": "done", "Wait": "wait", "Go": "go"},
        "sync.Once": {"Do": "do"},
        "sync.Cond": {"Wait": "wait", "Signal": "signal", "Broadcast": "broadcast"}}),
    # the typed atomics (gosim.atomic; the functions on plain variables are refused by the translator)
    Model("sync/atomic", methods={
        **{f"sync/atomic.{t}": {"Load": "load", "Store": "store", "Swap": "swap", "CompareAndSwap": "compare_and_swap",
                                "Add": "add", "And": "and_", "Or": "or_"} for t in ("Int32", "Int64", "Uint32", "Uint64")},
        **{f"sync/atomic.{t}": {"Load": "load", "Store": "store", "Swap": "swap", "CompareAndSwap": "compare_and_swap"}
           for t in ("Bool", "Value", "Pointer")}}),
    Model("time", funcs={"Sleep": "gosim.sleep", "After": "gosim.after", "NewTimer": "gosim.new_timer",
                         "NewTicker": "gosim.new_ticker", "AfterFunc": "gosim.after_func",
                         # a port's time.Time is the virtual clock's reading in seconds (docs/PORT.md)
                         "Now": "gosim.now", "Since": "rt.since", "Until": "rt.until"},
          durations={"Sleep": (0,), "After": (0,), "NewTimer": (0,), "NewTicker": (0,), "AfterFunc": (0,)},
          methods={"time.Timer": {"Stop": "stop", "Reset": "reset"},  # Reset's duration: Translator.callee
                   "time.Ticker": {"Stop": "stop", "Reset": "reset"}}),
    Model("context", funcs={"Background": "gosim.background", "TODO": "gosim.todo", "WithCancel": "gosim.with_cancel",
                            "WithTimeout": "gosim.with_timeout", "WithDeadline": "gosim.with_deadline"},
          durations={"WithTimeout": (1,)},
          values={"Canceled": "gosim.CANCELED", "DeadlineExceeded": "gosim.DEADLINE_EXCEEDED"},
          methods={"context.Context": {"Done": "done", "Err": "err"}}),  # Deadline, Value, WithValue: Translator.e_CallExpr
    Model("errors", funcs={"New": "rt.errors_new", "Is": "rt.errors_is", "Join": "rt.errors_join"}),
    Model("fmt", funcs={"Errorf": "rt.errorf", "Sprintf": "rt.sprintf", "Sprint": "rt.sprint"}),
    Model("testing", methods={"testing.common": {
        "Fatal": "fatal", "Fatalf": "fatalf", "Error": "error", "Errorf": "errorf", "Helper": "helper",
        "Cleanup": "cleanup", "Log": "log", "Logf": "logf", "Fail": "fail", "FailNow": "fail_now", "Failed": "failed",
        "Name": "go_name", "Skip": "skip", "Skipf": "skipf", "SkipNow": "skip_now", "Skipped": "skipped"},
        "testing.T": {"Run": "run"}}),
    Model("runtime", funcs={"Gosched": "gosim.gosched", "NumGoroutine": "goruntime.num_goroutine"},
          imports=("from fuzzfarm.goport import goruntime",)),
    # a leak check's report (goroutine dump to os.Stderr): written nowhere (goruntime.Profile)
    Model("runtime/pprof", funcs={"Lookup": "goruntime.pprof_lookup"},
          methods={"runtime/pprof.Profile": {"WriteTo": "write_to"}}, imports=("from fuzzfarm.goport import goruntime",)),
    Model("os", values={"Stderr": "goruntime.STDERR", "Stdout": "goruntime.STDOUT"},
          imports=("from fuzzfarm.goport import goruntime",)),
    Model("strconv", funcs={"Itoa": "str", "Atoi": "rt.atoi"}),
    # log: each call takes the logger's mutex around its write (golog: Go's happens-before edges)
    Model("log", funcs={"Printf": "golog.printf", "Println": "golog.println", "Print": "golog.print_",
                        "Default": "golog.std", "New": "golog.new"},
          methods={"log.Logger": {"Printf": "printf", "Println": "println", "Print": "print_", "Prefix": "prefix",
                                  "SetPrefix": "set_prefix", "Flags": "flags", "SetFlags": "set_flags"}},
          imports=("from fuzzfarm.goport import golog",)),
    Model("strings", funcs={
        "Split": "gostrings.split", "SplitN": "gostrings.split_n", "Join": "gostrings.join",
        "Contains": "gostrings.contains", "HasPrefix": "gostrings.has_prefix", "HasSuffix": "gostrings.has_suffix",
        "TrimSpace": "gostrings.trim_space", "TrimPrefix": "gostrings.trim_prefix", "TrimSuffix": "gostrings.trim_suffix",
        "Fields": "gostrings.fields", "Index": "gostrings.index", "Repeat": "gostrings.repeat",
        "ToLower": "gostrings.to_lower", "ToUpper": "gostrings.to_upper", "EqualFold": "gostrings.equal_fold",
        "Replace": "gostrings.replace", "ReplaceAll": "gostrings.replace_all"},
          types={"strings.Builder": "gostrings.Builder"},
          methods={"strings.Builder": {"WriteString": "write_string", "WriteRune": "write_rune", "String": "string",
                                       "Len": "len_", "Reset": "reset"}},
          imports=("from fuzzfarm.goport import gostrings",)),
    Model("sort", funcs={"Strings": "gosort.strings", "Ints": "gosort.ints"}, imports=("from fuzzfarm.goport import gosort",)),
    # net/http without a network: the Client and Transport structs (gohttp cites Go's semantics)
    Model("net/http", types={"net/http.Client": "gohttp.Client", "net/http.Transport": "gohttp.Transport"},
          imports=("from fuzzfarm.goport import gohttp",)),
    # net: TCP on the loopback, io: its helpers and sentinels (gonet; net.Conn, net.Listener and
    # net.Addr are interfaces, whose methods a port calls by their snake_case names)
    Model("io", funcs={"ReadFull": "gonet.read_full", "ReadAtLeast": "gonet.read_at_least", "Copy": "gonet.copy_"},
          values={"EOF": "gonet.EOF", "ErrUnexpectedEOF": "gonet.ERR_UNEXPECTED_EOF",
                  "ErrShortBuffer": "gonet.ERR_SHORT_BUFFER", "Discard": "gonet.DISCARD"},
          imports=("from fuzzfarm.goport import gonet",)),
    Model("net", funcs={"Listen": "gonet.listen", "Dial": "gonet.dial"},
          values={"ErrClosed": "gonet.ERR_CLOSED"},
          types={"net.TCPConn": "gonet.TCPConn", "net.TCPListener": "gonet.TCPListener", "net.TCPAddr": "gonet.TCPAddr"},
          methods={"net.TCPConn": {"Read": "read", "Write": "write", "Close": "close", "CloseWrite": "close_write",
                                   "LocalAddr": "local_addr", "RemoteAddr": "remote_addr"},
                   "net.TCPListener": {"Accept": "accept", "Close": "close", "Addr": "addr"},
                   "net.TCPAddr": {"String": "string", "Network": "network"}},
          imports=("from fuzzfarm.goport import gonet",)),
)

# apimachinery's wait and client-go's workqueue (fuzzfarm.goport.k8s, which cites upstream's lines)
_WAIT, _WORKQUEUE = "k8s.io/apimachinery/pkg/util/wait", "k8s.io/client-go/util/workqueue"
_QUEUE_METHODS = {"Add": "add", "Len": "len_", "Get": "get", "Done": "done", "ShutDown": "shut_down",
                  "ShutDownWithDrain": "shut_down_with_drain", "ShuttingDown": "shutting_down"}
K8S = (
    Model(_WAIT, funcs={
        "Until": "k8s.until", "UntilWithContext": "k8s.until_with_context", "NonSlidingUntil": "k8s.non_sliding_until",
        "NonSlidingUntilWithContext": "k8s.non_sliding_until_with_context", "JitterUntil": "k8s.jitter_until",
        "JitterUntilWithContext": "k8s.jitter_until_with_context", "Forever": "k8s.forever", "Jitter": "k8s.jitter",
        "ContextForChannel": "k8s.context_for_channel", "ExponentialBackoff": "k8s.exponential_backoff",
        "PollUntilContextCancel": "k8s.poll_until_context_cancel", "PollUntilContextTimeout": "k8s.poll_until_context_timeout",
        "PollImmediateUntil": "k8s.poll_immediate_until", "PollImmediateUntilWithContext": "k8s.poll_immediate_until_with_context"},
        values={"NeverStop": "k8s.never_stop()", "ErrWaitTimeout": "k8s.ERR_WAIT_TIMEOUT"},
        types={f"{_WAIT}.Backoff": "k8s.Backoff"},
        methods={f"{_WAIT}.Backoff": {"Step": "step"}},
        imports=("from fuzzfarm.goport import k8s",)),
    # New returns *Type (Typed[any] upstream, the methods' receiver); Interface's methods are called through it
    Model(_WORKQUEUE, funcs={"New": "k8s.new", "NewNamed": "k8s.new_named"},
          methods={f"{_WORKQUEUE}.{t}": _QUEUE_METHODS for t in ("Type", "Typed", "Interface", "TypedInterface")},
          imports=("from fuzzfarm.goport import k8s",)),
)

# Imports a stub cannot honestly stand for (what they do is not a function's result): refused,
# with what to do, unless a model is registered for them.
NOT_STUBBED = {
    "unsafe": "pointers without types have no gosim meaning; stub the functions that use it by hand",
    "reflect": "reflection over the port's Python objects is not Go's; stub the functions that use it by hand",
}

_registered: list[Model] = []


def register(model: Model) -> None:
    """Add (or replace, by import path) a model for this process: for a program that calls the
    translator itself. Installed packages use the ``fuzzfarm.gomodels`` entry point instead."""
    if not isinstance(model, Model):
        raise TypeError(f"register takes a fuzzfarm.goport.models.Model, not {type(model).__name__}")
    _registered.append(model)


class ModelError(Exception):
    """An installed model cannot be loaded: ``str`` names the entry point and what to do."""


def _from_entry_points() -> list[Model]:
    out = []
    for ep in sorted(metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        try:
            obj = ep.load()
        except Exception as e:  # noqa: BLE001 - any import failure of a plugin is the plugin's
            raise ModelError(f"gosim model entry point {ep.name} = {ep.value!r} failed to import "
                             f"({type(e).__name__}: {e}); fix or uninstall that package") from None
        models = obj if isinstance(obj, (list, tuple)) else [obj]
        for m in models:
            if not isinstance(m, Model):
                raise ModelError(f"gosim model entry point {ep.name} = {ep.value!r} is a {type(m).__name__}, not a "
                                 "fuzzfarm.goport.models.Model (or a list of them); fix that package")
            out.append(m)
    return out


def registry() -> dict[str, Model]:
    """Import path -> model: the standard library's and the Kubernetes ones, then installed ones, then
    registered ones."""
    reg = {}
    for m in (*STDLIB, *K8S, *_from_entry_points(), *_registered):
        reg[m.path] = m
    return reg


# --- stubs ----------------------------------------------------------------------------------

def stub_module_name(path: str) -> str:
    """The Python module (inside the port package) of the stub for import ``path``:
    ``net/http`` -> ``stub_net_http``."""
    return "stub_" + re.sub(r"[^0-9a-zA-Z]+", "_", path).strip("_").lower()


def stub_source(path: str, funcs: dict[str, str], pkg: str) -> str:
    """A stub module for import ``path``: ``funcs`` maps each Go function the port calls to its
    Go signature. Every function raises ``rt.StubNotFilled`` until its body is replaced; the
    ``@rt.stub`` decorator marks it unfilled (``rt.require_filled`` lists what still is)."""
    lines = [f'"""Stub of Go package "{path}", written by `fuzzfarm port`: no gosim model is registered for it.',
             "",
             "Fill in each function with what the Go function does that matters to the program (its",
             "blocking, its shared state, its result) and remove its @rt.stub line; or register a model",
             "(docs/PORT.md#models) and port again. Until every stub the port uses is filled in, the",
             f'harness refuses to load, so an unfilled stub is never reported as a bug in the Go."""',
             "", "from __future__ import annotations", "", "from fuzzfarm import gosim  # noqa: F401 - for what you fill in",
             "from fuzzfarm.goport import rt", ""]
    for name, sig in sorted(funcs.items()):
        lines += ["", f'@rt.stub("{path}.{name}", "{pkg}")', f"def {name}(*args):",
                  f'    """Go: func {name}{sig}"""',
                  f'    raise rt.StubNotFilled("{path}.{name}", "{pkg}")', ""]
    return "\n".join(lines)


def type_table(models) -> dict[str, str]:
    """Go type (``"strings.Builder"``) -> the Python class a model gives for it (``Model.types``)."""
    return {t: py for m in models for t, py in m.types.items()}


def tables(models) -> tuple[dict, dict, dict, set]:
    """The translator's lookup tables from ``models``: (methods by Go type, ``"path.Func"`` ->
    (Python callee, duration argument indexes), ``"path.Value"`` -> Python, modelled paths)."""
    methods, funcs, values, paths = {}, {}, {}, set()
    for m in models:
        paths.add(m.path)
        methods.update(m.methods)
        for name, py in m.funcs.items():
            funcs[f"{m.path}.{name}"] = (py, tuple(m.durations.get(name, ())))
        for name, py in m.values.items():
            values[f"{m.path}.{name}"] = py
    return methods, funcs, values, paths
