"""Models of Go's ``net`` (TCP on the loopback) and ``io`` (the helpers and sentinels a port of
network code calls) for generated ports (docs/PORT.md, "net and io").

A run has its own network (one per gosim run): ``net.Listen("tcp", "127.0.0.1:0")`` binds a
listener on a port numbered from 40000 in the run, ``net.Dial`` connects to it, and the two
``*net.TCPConn`` ends of a connection are two byte streams. As on a real loopback socket:

* ``Dial`` completes without the listener's ``Accept`` (the kernel finishes the handshake into
  the backlog); ``Accept`` waits for a connection in the backlog; ``Dial`` to a port nobody
  listens on is ``connect: connection refused``;
* ``Write`` copies into the stream's buffer and returns once every byte is in (Go's
  ``internal/poll.FD.Write`` loops); it waits only while the buffer is full (``BUFFER`` bytes
  unread: the kernel's socket buffers, whose real size Go does not choose);
* ``Read`` returns the bytes there are (at least one, at most ``len(b)``), waits while there
  are none, and gives ``io.EOF`` once the peer closed its write side (``CloseWrite`` or
  ``Close``) and everything sent before was read;
* ``Close`` ends both directions: the peer reads EOF after the data already sent; a later
  ``Read``/``Write``/``Close`` on the closed end is Go's ``use of closed network connection``;
  a goroutine waiting in ``Read``/``Write``/``Accept`` on it wakes with that error, as Go's
  netpoller wakes it; ``Write`` after one's own ``CloseWrite`` is ``broken pipe``.

A wait is a gosim park with Go's wait reason ``IO wait``: a goroutine waiting for the network is
blocked, so a program whose every goroutine waits ends as gosim's ``Deadlock``. Go's runtime
reports no deadlock while a goroutine waits in the netpoller: the process hangs (``go test``
until its ``-timeout``), the same blocked-forever state (docs/PORT.md, Known differences).

Happens-before, as ``go test -race`` sees it: ``syscall.Write`` does ``race.ReleaseMerge`` on
one global ``ioSync`` and ``syscall.Read`` a ``race.Acquire`` of it whenever the read(2) returned
no error, bytes or the end of the stream (syscall/syscall_unix.go, Read and Write, Go 1.27), so
every write happens before every later successful read, on any socket; a read writes the bytes
it fills in (``race.WriteRange``), a write reads those it sends (``ReadRange``). The model does
the same on the run's network. Go's sources for the rest: internal/poll/fd_unix.go (``FD.Read``:
a zero-length read returns at once; ``FD.Write`` loops until every byte is written), io/io.go
(``ReadAtLeast``, ``copyBuffer``'s 32 KiB buffer), net/net.go (``OpError.Error``, ``ErrClosed``),
net/tcpsock.go (``CloseWrite``).

Not modelled (a Python error naming it, never a Go failure): other networks than ``tcp``/
``tcp4`` on the loopback, deadlines, ``Write`` after the peer's ``Close`` failing (on a real
socket the first such write succeeds and a later one may fail with ``connection reset by peer``
or ``broken pipe`` depending on when the reset arrives: here every such write succeeds and the
bytes are dropped).
"""

from __future__ import annotations

import weakref

from fuzzfarm import gosim

from . import rt

BUFFER = 1 << 17  # bytes a stream holds unread before a Write waits (a loopback socket's buffers)
FIRST_PORT = 40000  # the first port a run's listeners and dialers get (ephemeral ports in Go)
COPY_BUFFER = 32 * 1024  # io.Copy's buffer (io.go: copyBuffer's default size)

# io's sentinel errors: one object each, compared by identity as Go compares them
EOF = rt.GoErr("EOF")
ERR_UNEXPECTED_EOF = rt.GoErr("unexpected EOF")
ERR_SHORT_BUFFER = rt.GoErr("short buffer")
ERR_CLOSED = rt.GoErr("use of closed network connection")  # net.ErrClosed


class OpError(rt.GoErr):
    """``*net.OpError``: ``op network local->remote: text`` (net.go, OpError.Error)."""

    _go_type_name_ = "*net.OpError"

    def __init__(self, op: str, source: str | None, addr: str | None, err: rt.GoErr | str):
        text = op + " tcp"
        if source and addr:
            text += f" {source}->{addr}"
        elif addr:
            text += f" {addr}"
        super().__init__(f"{text}: {err if isinstance(err, str) else str(err)}", err if isinstance(err, rt.GoErr) else None)

    def error(self) -> str:
        return str(self)


class _Net:
    """One run's network: listeners by port, the next free port, and the race detector's ioSync."""

    def __init__(self):
        self.listeners: dict[int, TCPListener] = {}
        self.next_port = FIRST_PORT
        self.io_sync: list | None = None

    def port(self) -> int:
        while self.next_port in self.listeners:
            self.next_port += 1
        self.next_port += 1
        return self.next_port - 1


_NETS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _net() -> _Net:
    r = gosim.current_runtime()
    n = _NETS.get(r)
    if n is None:
        n = _NETS[r] = _Net()
    return n


def _park_io(waiters: list) -> None:
    """Wait in the netpoller (``IO wait``) until a change on the socket readies this goroutine."""
    r = gosim.current_runtime()
    waiters.append(r.cur)
    r.park("IO wait")


def _wake(waiters: list) -> None:
    r = gosim.current_runtime()
    while waiters:
        r.ready(waiters.pop(0))


class TCPAddr:
    """``*net.TCPAddr`` on the loopback."""

    _go_type_name_ = "*net.TCPAddr"

    def __init__(self, port: int):
        self.port = port

    def string(self) -> str:
        return f"127.0.0.1:{self.port}"

    def network(self) -> str:
        return "tcp"


class _Stream:
    """One direction of a connection: the bytes written and not yet read."""

    def __init__(self):
        self.buf = bytearray()
        self.shut = False  # the writer closed its side: EOF once drained
        self.readers: list = []
        self.writers: list = []


class TCPConn:
    """``*net.TCPConn``: one end of a loopback connection (module docstring)."""

    _go_type_name_ = "*net.TCPConn"

    def __init__(self, local: TCPAddr, remote: TCPAddr, rx: _Stream, tx: _Stream):
        self.laddr, self.raddr, self.rx, self.tx = local, remote, rx, tx
        self.closed = False
        self.peer: TCPConn | None = None

    def _err(self, op: str, err) -> OpError:
        return OpError(op, self.laddr.string(), self.raddr.string(), err)

    def read(self, b):
        """``Read(b []byte) (int, error)``."""
        r = gosim.current_runtime()
        r.sched("net.Conn.Read")  # a system call: another goroutine may run
        n = rt.glen(b)
        while True:
            if self.closed:
                return 0, self._err("read", ERR_CLOSED)
            if n == 0:
                return 0, None  # internal/poll: a zero-length read returns at once
            if self.rx.buf:
                k = min(n, len(self.rx.buf))
                rt._access(b, 0, k, True)  # race.WriteRange of the bytes read
                for i in range(k):
                    b[i] = self.rx.buf[i]
                del self.rx.buf[:k]
                _wake(self.rx.writers)
                if r.race is not None:
                    r.race.acquire(_net().io_sync)
                return k, None
            if self.rx.shut:
                if r.race is not None:  # the read(2) that saw the end succeeded too: it acquires
                    r.race.acquire(_net().io_sync)
                return 0, EOF
            _park_io(self.rx.readers)

    def write(self, b):
        """``Write(b []byte) (int, error)``: returns once every byte is in the stream."""
        r = gosim.current_runtime()
        r.sched("net.Conn.Write")
        if self.closed:
            return 0, self._err("write", ERR_CLOSED)
        if self.tx.shut:
            return 0, self._err("write", "write: broken pipe")
        n = rt.glen(b)
        if r.race is not None:
            net = _net()
            net.io_sync = r.race.release_merge(net.io_sync)
        rt._access(b, 0, n, False)  # race.ReadRange of the bytes written
        data = [b[i] for i in range(n)]
        done = 0
        while done < n:
            if self.closed:
                return done, self._err("write", ERR_CLOSED)
            if self.peer is not None and self.peer.closed:
                return n, None  # the peer's socket is gone: dropped (module docstring)
            room = BUFFER - len(self.tx.buf)
            if room > 0:
                k = min(room, n - done)
                self.tx.buf += bytes(data[done:done + k])
                done += k
                _wake(self.tx.readers)
                continue
            _park_io(self.tx.writers)
        return n, None

    def close(self):
        """``Close() error``."""
        gosim.current_runtime().sched("net.Conn.Close")
        if self.closed:
            return self._err("close", ERR_CLOSED)
        self.closed = True
        self.tx.shut = True  # the peer reads EOF after what was sent
        _wake(self.tx.readers)
        _wake(self.rx.readers)  # our own waiters wake to the closed error
        _wake(self.rx.writers)  # the peer's writers: the data they wait to send is dropped
        _wake(self.tx.writers)
        return None

    def close_write(self):
        """``CloseWrite() error``: shut down the writing side (the peer reads EOF)."""
        gosim.current_runtime().sched("net.TCPConn.CloseWrite")
        if self.closed:
            return self._err("close", ERR_CLOSED)
        self.tx.shut = True
        _wake(self.tx.readers)
        return None

    def local_addr(self) -> TCPAddr:
        return self.laddr

    def remote_addr(self) -> TCPAddr:
        return self.raddr


class TCPListener:
    """``*net.TCPListener`` on the loopback."""

    _go_type_name_ = "*net.TCPListener"

    def __init__(self, port: int):
        self.port = port
        self.backlog: list[TCPConn] = []
        self.acceptors: list = []
        self.closed = False

    def accept(self):
        """``Accept() (net.Conn, error)``: the next connection of the backlog, waiting for one."""
        gosim.current_runtime().sched("net.Listener.Accept")
        while True:
            if self.closed:
                return None, OpError("accept", None, f"127.0.0.1:{self.port}", ERR_CLOSED)
            if self.backlog:
                return self.backlog.pop(0), None
            _park_io(self.acceptors)

    def close(self):
        gosim.current_runtime().sched("net.Listener.Close")
        if self.closed:
            return OpError("close", None, f"127.0.0.1:{self.port}", ERR_CLOSED)
        self.closed = True
        _net().listeners.pop(self.port, None)
        for c in self.backlog:  # connections never accepted: reset (their dialer reads EOF here)
            c.close()
        self.backlog = []
        _wake(self.acceptors)
        return None

    def addr(self) -> TCPAddr:
        return TCPAddr(self.port)


def _port_of(network: str, address: str, what: str) -> int:
    if network not in ("tcp", "tcp4"):
        raise NotImplementedError(f"the net model has tcp on the loopback only, not {what} {network!r}")
    host, _, port = address.rpartition(":")
    if host not in ("", "127.0.0.1", "localhost") or not port.isdigit():
        raise NotImplementedError(f"the net model has the loopback only (127.0.0.1:PORT), not {what} {address!r}")
    return int(port)


def listen(network: str, address: str):
    """``net.Listen(network, address) (net.Listener, error)``."""
    gosim.current_runtime().sched("net.Listen")
    net = _net()
    port = _port_of(network, address, "net.Listen")
    if port == 0:
        port = net.port()
    elif port in net.listeners:
        return None, OpError("listen", None, f"127.0.0.1:{port}", "bind: address already in use")
    ln = net.listeners[port] = TCPListener(port)
    return ln, None


def dial(network: str, address: str):
    """``net.Dial(network, address) (net.Conn, error)``: connected once in the listener's backlog."""
    gosim.current_runtime().sched("net.Dial")
    net = _net()
    port = _port_of(network, address, "net.Dial")
    ln = net.listeners.get(port)
    if ln is None:
        return None, OpError("dial", None, f"127.0.0.1:{port}", "connect: connection refused")
    up, down = _Stream(), _Stream()
    client = TCPConn(TCPAddr(net.port()), TCPAddr(port), rx=down, tx=up)
    server = TCPConn(TCPAddr(port), client.laddr, rx=up, tx=down)
    client.peer, server.peer = server, client
    ln.backlog.append(server)
    _wake(ln.acceptors)
    return client, None


# --- io --------------------------------------------------------------------------------------

class _Discard:
    """``io.Discard``: every write succeeds and is dropped."""

    _go_type_name_ = "io.discard"

    def write(self, b):
        return rt.glen(b), None

    def write_string(self, s: str):
        return len(s.encode()), None


DISCARD = _Discard()


def read_at_least(r, buf, n: int):
    """``io.ReadAtLeast(r, buf, min)`` (io/io.go): reads until ``min`` bytes; EOF after some is
    ``ErrUnexpectedEOF``, before any ``EOF``."""
    if rt.glen(buf) < n:
        return 0, ERR_SHORT_BUFFER
    got, err = 0, None
    while got < n and err is None:
        k, err = r.read(rt.slice_expr(buf, got, None, None))
        got += k
    if got >= n:
        err = None
    elif got > 0 and err is EOF:
        err = ERR_UNEXPECTED_EOF
    return got, err


def read_full(r, buf):
    """``io.ReadFull(r, buf)``: ``ReadAtLeast(r, buf, len(buf))``."""
    return read_at_least(r, buf, rt.glen(buf))


def copy_(dst, src):
    """``io.Copy(dst, src) (int64, error)``: reads into a 32 KiB buffer and writes what it read
    until EOF, which is success (nil error)."""
    buf = rt.make_slice(COPY_BUFFER, None, lambda: 0)
    written = 0
    while True:
        k, er = src.read(buf)
        if k > 0:
            nw, ew = dst.write(rt.slice_expr(buf, 0, k, None))
            written += nw
            if ew is not None:
                return written, ew
            if nw != k:
                return written, rt.GoErr("short write")
        if er is not None:
            return written, (None if er is EOF else er)
