"""A loopback TCP relay that can black-hole its connections: what a middlebox, a dead NAT entry or
a half-open link does to a worker's Redis sockets.

    with Relay("127.0.0.1", redis_port) as relay:   # workers connect to relay.port
        relay.black_hole(5.0)    # every socket, old and new, gets nothing through for 5 s, and
                                 # stays open; afterwards only connections made since are relayed

A black-holed socket is simply no longer read (in either direction): what a client sends sits
in the kernel's buffers, nothing comes back, no FIN, no RST. A connection accepted during the
window is held the same way until the window ends, then relayed (the network came back for new
flows); a connection older than the window never gets through again: only a timeout or a
health check on the client's side can tell it is dead.

One thread, one selector; test code only (no fuzzfarm import)."""

from __future__ import annotations

import selectors
import socket
import threading
import time


class _Pair:
    def __init__(self, client: socket.socket, upstream: socket.socket, born: float):
        self.client, self.upstream, self.born = client, upstream, born
        self.dead = False  # black-holed for good

    def other(self, s: socket.socket) -> socket.socket:
        return self.upstream if s is self.client else self.client

    def close(self) -> None:
        for s in (self.client, self.upstream):
            try:
                s.close()
            except OSError:
                pass


class Relay:
    def __init__(self, target_host: str, target_port: int):
        self.target = (target_host, target_port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.setblocking(False)
        self.port = self.listener.getsockname()[1]
        self._sel = selectors.DefaultSelector()
        self._lock = threading.Lock()
        self._pairs: list[_Pair] = []
        self._hole_until = 0.0
        self._hole_started = 0.0
        self._stop = False
        self.accepted = 0
        self._thread = threading.Thread(target=self._loop, name="relay", daemon=True)

    # ---- control --------------------------------------------------------------------------
    def start(self) -> "Relay":
        self._sel.register(self.listener, selectors.EVENT_READ, None)
        self._thread.start()
        return self

    def black_hole(self, seconds: float) -> None:
        """From now on, for ``seconds``: nothing passes; connections older than now never again."""
        now = time.monotonic()
        with self._lock:
            self._hole_started, self._hole_until = now, now + seconds
            for p in self._pairs:
                p.dead = True

    def open_connections(self) -> int:
        with self._lock:
            return sum(1 for p in self._pairs if not p.dead)

    def stop(self) -> None:
        self._stop = True
        self._thread.join(5)
        with self._lock:
            for p in self._pairs:
                p.close()
        self.listener.close()

    def __enter__(self) -> "Relay":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # ---- the loop -------------------------------------------------------------------------
    def _holed(self, p: _Pair, now: float) -> bool:
        return p.dead or now < self._hole_until

    def _watch(self, now: float) -> None:
        """(Un)register each pair's sockets: a black-holed pair is not read at all."""
        with self._lock:
            pairs = list(self._pairs)
        for p in pairs:
            want = not self._holed(p, now)
            for s in (p.client, p.upstream):
                try:
                    registered = s in self._sel.get_map()
                except (ValueError, KeyError):
                    registered = False
                if want and not registered:
                    self._sel.register(s, selectors.EVENT_READ, p)
                elif not want and registered:
                    self._sel.unregister(s)

    def _accept(self) -> None:
        try:
            c, _ = self.listener.accept()
        except BlockingIOError:
            return
        try:
            u = socket.create_connection(self.target, timeout=3)
        except OSError:
            c.close()
            return
        for s in (c, u):
            s.setblocking(False)
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with self._lock:
            self._pairs.append(_Pair(c, u, time.monotonic()))
            self.accepted += 1

    def _drop(self, p: _Pair) -> None:
        for s in (p.client, p.upstream):
            try:
                self._sel.unregister(s)
            except (KeyError, ValueError):
                pass
        p.close()
        with self._lock:
            if p in self._pairs:
                self._pairs.remove(p)

    def _loop(self) -> None:
        while not self._stop:
            self._watch(time.monotonic())
            for key, _ in self._sel.select(timeout=0.05):
                if key.data is None:
                    self._accept()
                    continue
                p: _Pair = key.data
                if self._holed(p, time.monotonic()):
                    continue
                try:
                    data = key.fileobj.recv(65536)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if not data:
                    self._drop(p)
                    continue
                try:
                    p.other(key.fileobj).setblocking(True)
                    p.other(key.fileobj).sendall(data)
                    p.other(key.fileobj).setblocking(False)
                except OSError:
                    self._drop(p)
