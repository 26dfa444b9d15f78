"""HC-18: spdystream's idle-aware framer deadlocks when a write and the connection's close meet.

docker/spdystream issue #49, fixed by PR #50 "Fix write/close deadlock" (commit d91d6d1), the
SPDY transport under ``kubectl exec``/``port-forward`` and the kubelet's streaming server; the
fix reached Kubernetes with its vendored copy (kubernetes/kubernetes PR #6632; the GoBench entry
kubernetes#6632). Ported from ``connection.go`` at the parent of d91d6d1 (buggy) and at it
(fixed); ``# :N`` comments are lines of that file in the matching version (code the fix did not
touch cites the parent's lines; the fixed monitor's lines are marked "fixed").

M, the framer's ``monitor`` goroutine, owns the idle timer: every frame read or written sends
a token on ``resetChan`` (capacity 2) and M re-arms the timer for each. A writer sends its token
while it holds ``writeLock``. When the reader R sees EOF it closes ``closeChan``; M then takes
``writeLock`` to close ``resetChan``. Depth 3, all three must hold:

1. M is runnable but does not run (it took a token, or is about to select) while three more
   tokens are sent: two fill the buffer, the third is a writer's, which blocks holding
   ``writeLock`` (M is not in its select, so no send is handed to it);
2. R reads EOF and closes ``closeChan`` before M gets back to its select;
3. M's select, with both ``resetChan`` (full) and ``closeChan`` (closed) ready, picks
   ``closeChan`` (Go picks uniformly among ready cases).

Then M stops the timer and waits for ``writeLock``; the writer waits for M to drain
``resetChan``; every other writer waits for ``writeLock``: ``deadlock``. Upstream saw it in
"unit tests with large numbers of goroutines", where M is starved (constraint 1).

Fixed (#50): before taking ``writeLock``, M starts a goroutine that drains ``resetChan`` until
it is closed, so the blocked writer completes and releases the lock.
"""

from __future__ import annotations

from fuzzfarm import gosim
from fuzzfarm.gosim import go_func, not_ported

ID = "HC-18"
TITLE = "spdystream idleAwareFramer write vs connection close: deadlock on writeLock and a full resetChan"
SOURCE = "https://github.com/docker/spdystream/issues/49 (fix PR #50, commit d91d6d1; kubernetes PR #6632)"
KIND = "deadlock"
KINDS = (KIND,)
EXC_CLASS = None
DEPTH = 3
HARD = True  # tests in tests/gosim/test_hard_cases.py, benchmark in benchmarks/hard_cases.py
RUN_KW = {"check_leaks": True, "max_starvation_s": 0.1}

# The scenario: a port-forward connection with an idle timeout; the remote end sends
# REMOTE_FRAMES frames and hangs up while WRITERS local streams each write FRAMES_PER_WRITER
# data frames. The idle timeout is the kubelet's default (--streaming-connection-idle-timeout,
# 4 h): far beyond any run, on the virtual clock and on stress's scaled one, so the idle timer is
# re-armed and stopped, never fired.
IDLE_TIMEOUT = 4 * 3600.0
REMOTE_FRAMES = 2
WRITERS = 2
FRAMES_PER_WRITER = 2
RESET_CHAN_CAP = 2  # make(chan struct{}, 2) (:43)


class EOF(Exception):
    """``io.EOF``."""


@not_ported("stand-in for spdy.Framer's socket read or write")
def _socket_io(what):
    """One frame read from or written to the TCP connection (``spdy.Framer``): network I/O,
    where Go's scheduler runs other goroutines (docs/RUNTIME.md, I/O)."""
    gosim.current_runtime().sched(what)


class _IdleAwareFramer:
    """``idleAwareFramer`` (connection.go:31)."""

    @go_func("newIdleAwareFramer", "connection.go:40")
    def __init__(self, fixed):
        self.fixed = fixed
        self.conn = None
        self.write_lock = gosim.Mutex("writeLock")  # the idleAwareFramer struct's writeLock field (connection.go line 34)
        self.reset_chan = gosim.Chan(RESET_CHAN_CAP, name="resetChan", zero_size=True)  # :43 chan struct{}
        self.set_timeout_chan = gosim.Chan(name="setTimeoutChan")  # :44
        self.timeout = 0.0

    @go_func("idleAwareFramer.monitor", "connection.go:49")
    def monitor(self):
        timer = None
        expired = None  # a nil channel until the first SetIdleTimeout (:52)
        reset_chan = self.reset_chan  # :53
        while True:
            idx, v, _ = gosim.select(  # :57
                gosim.recv_case(self.set_timeout_chan),
                gosim.recv_case(reset_chan),
                gosim.recv_case(expired),
                gosim.recv_case(self.conn.close_chan))
            if idx == 0:
                self.timeout = v  # :59
                if v == 0:
                    if timer is not None:
                        timer.stop()  # :62
                elif timer is None:
                    timer = gosim.new_timer(v, name="idleTimer")  # :66
                    expired = timer.c  # :67
                else:
                    timer.reset(v)  # :69
            elif idx == 1:
                if timer is not None and self.timeout > 0:  # :73
                    timer.reset(self.timeout)  # :74
            elif idx == 2:
                # :76-87 the idle timeout: reset every stream and close the connection. Not
                # ported: no run gets near IDLE_TIMEOUT, and reaching it means the scenario broke
                raise RuntimeError("HC-18 scenario: the idle timeout fired; IDLE_TIMEOUT must exceed the run")
            else:
                if timer is not None:
                    timer.stop()  # :90
                if self.fixed:
                    gosim.go(self._drain, reset_chan, name="resetChan drainer")  # fixed :101
                self.write_lock.lock()  # :92 (fixed :106)
                reset_chan.close()  # :93
                self.reset_chan = None  # :94
                self.write_lock.unlock()  # :95
                break  # :96
        while True:  # :101 for range resetChan
            _, ok = reset_chan.recv_ok()
            if not ok:
                return

    @go_func("idleAwareFramer.monitor.func2", "connection.go:101")
    def _drain(self, reset_chan):
        """#50's drainer (fixed version only)."""
        while True:
            _, ok = reset_chan.recv_ok()  # :102
            if not ok:
                return

    @go_func("idleAwareFramer.WriteFrame", "connection.go:105")
    def write_frame(self, frame):
        self.write_lock.lock()  # :106
        try:
            if self.reset_chan is None:  # :108
                raise EOF()  # :109
            _socket_io("framer.WriteFrame")  # :111
            self.reset_chan.send(None)  # :116
        finally:
            self.write_lock.unlock()  # :107 defer

    @go_func("idleAwareFramer.ReadFrame", "connection.go:121")
    def read_frame(self, remote):
        _socket_io("framer.ReadFrame")  # :122
        if not remote:
            raise EOF()  # :124 the remote end hung up
        frame = remote.pop(0)
        self.reset_chan.send(None)  # :131
        return frame


class _Connection:
    """``Connection`` (connection.go:136): only what the framer touches."""

    @go_func("NewConnection", "connection.go:166")
    def __init__(self, fixed):
        self.framer = _IdleAwareFramer(fixed)  # :171
        self.close_chan = gosim.Chan(name="closeChan")  # :192
        self.framer.conn = self  # :207
        gosim.go(self.framer.monitor, name="M.monitor")  # :208

    @go_func("Connection.SetIdleTimeout", "connection.go:749")
    def set_idle_timeout(self, timeout):
        self.framer.set_timeout_chan.send(timeout)  # :750

    @go_func("Connection.Serve", "connection.go:249")
    def serve(self, remote):
        # the frame workers and queues (:252-262, :275-313) hand frames to streams; the frames
        # here carry no stream work, so only the read loop and the close are ported
        while True:
            try:
                self.framer.read_frame(remote)  # :266
            except EOF:
                break  # :273
        self.close_chan.close()  # :315


# ---------------------------------------------------------------------------- the scenario
@not_ported("builds the scenario's main for one variant")
def _scenario(fixed: bool):
    @not_ported("scenario driver: a port-forward session whose remote end hangs up mid-write")
    def main():
        conn = _Connection(fixed)
        conn.set_idle_timeout(IDLE_TIMEOUT)  # the kubelet sets one on every streaming connection
        remote = [f"remote frame {i}" for i in range(REMOTE_FRAMES)]
        wg = gosim.WaitGroup("streams")

        @not_ported("scenario driver: one stream copying local data (Stream.Write -> WriteFrame)")
        def writer(n):
            for j in range(FRAMES_PER_WRITER):
                try:
                    conn.framer.write_frame(f"data {n}.{j}")
                except EOF:  # the connection closed under the stream: its write fails
                    break
            wg.done()

        wg.add(WRITERS)
        gosim.go(conn.serve, remote, name="R.Serve")
        for n in range(WRITERS):
            gosim.go(writer, n, name=f"W{n + 1}.stream")
        wg.wait()

    return main


buggy = _scenario(fixed=False)
fixed = _scenario(fixed=True)
buggy.__doc__ = "The scenario before the upstream fix (fails under some schedule; see KINDS)."
fixed.__doc__ = "The scenario after the upstream fix (never fails)."
