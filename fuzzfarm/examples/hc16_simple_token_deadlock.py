"""HC-16: etcd's simple-token TTL keeper deadlocks with a request holding the token lock.

etcd-io/etcd issue #7471 ("Benchmarking is causing cluster to become unresponsive"), fixed by
PR #7492 "auth: get rid of deadlocking channel passing scheme in simpleTokenTTL" (commit
1b1fabef). Ported from ``auth/simple_token.go`` at the parent of that commit (buggy) and at it
(fixed); ``# :N`` comments are lines of that file in the matching version.

K, the keeper's ``run`` loop, owns the token deadlines and is fed through channels of capacity
1. Every request's auth check (``tokenSimple.info``) holds the *read* side of
``simpleTokensMu`` while it sends the token's TTL reset to K. On a tick, K deletes expired
tokens through ``deleteTokenFunc``, which takes the *write* side of the same lock. Depth 3:

1. K takes the tick at which an idle token is first seen expired (the virtual clock: 5 minutes
   after that token was issued) before a request R1 sends its reset;
2. R1's reset lands in the buffer while K is inside the tick handler (K is not in its select);
3. R2 takes the read lock before K asks for the write lock, then finds the buffer full.

R2 waits for K to drain the channel, K waits for R2's read lock, and every later request waits
behind K's pending write lock (writer preference): ``deadlock``.

Fixed (#7492): no channels. The keeper's map has its own mutex ``tokensMu``, taken first by
every path (the tick handler, ``assign``, ``info``), then ``simpleTokensMu``: one lock order.

Go lines: etcd@51939650057d602bb5ab090633138fffe36854dc auth/simple_token.go (buggy) and
etcd@1b1fabef8ffec606909f01c3983300fff539f214 (fixed).
"""

from __future__ import annotations

from fuzzfarm import gosim
from fuzzfarm.gosim import go_func, not_ported

ID = "HC-16"
TITLE = "etcd simpleTokenTTLKeeper tick vs token-lock holders: deadlock"
SOURCE = "https://github.com/etcd-io/etcd/issues/7471 (fix PR #7492)"
KIND = "deadlock"
KINDS = (KIND,)
EXC_CLASS = None
DEPTH = 3
HARD = True  # tests in tests/gosim/test_hard_cases.py, benchmark in benchmarks/hard_cases.py
# the farm's starvation bound (docs/timing.md), so direct gosim.run calls see the runs the harness sees
RUN_KW = {"check_leaks": True, "max_starvation_s": 0.1}

# simpleTokenTTL is 5 * time.Minute upstream (:35); #7492 turned it into a var "for testing
# purposes". The scenario sets it to 5 s, so a run waits 5 ticks for the idle token to expire
# instead of 300: the ticks before the expiry are all alike and change no ordering.
SIMPLE_TOKEN_TTL = 5.0
SIMPLE_TOKEN_TTL_RESOLUTION = 1.0  # simpleTokenTTLResolution = 1 * time.Second (:36)
# The scenario: user "root" authenticated at t=0 and went idle; at t=TTL a benchmark client
# authenticates and two of its connections each send REQUESTS requests, one per period.
CLIENT_PERIODS = (1.0, 1.0)  # one connection per entry: seconds between its requests
REQUESTS = 2


# ---------------------------------------------------------------------------- before #7492
class _KeeperChan:
    """``simpleTokenTTLKeeper`` before the fix: the deadlines map is owned by ``run``."""

    @go_func("NewSimpleTokenTTLKeeper", "simple_token.go:48")
    def __init__(self, delete_token_func):
        self.tokens = {}  # only run touches it
        self.add_simple_token_ch = gosim.Chan(1, name="addSimpleTokenCh")  # :51
        self.reset_simple_token_ch = gosim.Chan(1, name="resetSimpleTokenCh")  # :52
        self.delete_simple_token_ch = gosim.Chan(1, name="deleteSimpleTokenCh")  # :53
        self.stop_ch = gosim.Chan(name="stopCh")
        self.delete_token_func = delete_token_func
        gosim.go(self.run, name="simpleTokenTTLKeeper.run")  # :57

    @go_func("simpleTokenTTLKeeper.stop", "simple_token.go:61")
    def stop(self):
        wait_ch = gosim.Chan(name="waitCh")
        self.stop_ch.send(wait_ch)  # :63
        wait_ch.recv()  # :64
        self.stop_ch.close()  # :65

    @go_func("simpleTokenTTLKeeper.addSimpleToken", "simple_token.go:68")
    def add_simple_token(self, token):
        self.add_simple_token_ch.send(token)  # :69

    @go_func("simpleTokenTTLKeeper.resetSimpleToken", "simple_token.go:72")
    def reset_simple_token(self, token):
        self.reset_simple_token_ch.send(token)  # :73

    @go_func("simpleTokenTTLKeeper.run", "simple_token.go:79")
    def run(self):
        token_ticker = gosim.new_ticker(SIMPLE_TOKEN_TTL_RESOLUTION, name="tokenTicker")  # :80
        try:
            while True:
                idx, v, _ = gosim.select(  # :83
                    gosim.recv_case(self.add_simple_token_ch),
                    gosim.recv_case(self.reset_simple_token_ch),
                    gosim.recv_case(self.delete_simple_token_ch),
                    gosim.recv_case(token_ticker.c),
                    gosim.recv_case(self.stop_ch))
                if idx == 0:
                    self.tokens[v] = gosim.now() + SIMPLE_TOKEN_TTL  # :85
                elif idx == 1:
                    if v in self.tokens:  # :87
                        self.tokens[v] = gosim.now() + SIMPLE_TOKEN_TTL  # :88
                elif idx == 2:
                    self.tokens.pop(v, None)  # :91
                elif idx == 3:
                    nowtime = gosim.now()  # :93
                    for t, tokenendtime in list(self.tokens.items()):  # :94
                        if nowtime > tokenendtime:  # :95
                            self.delete_token_func(t)  # :96
                            self.tokens.pop(t, None)  # :97
                else:
                    self.tokens = {}  # :101
                    v.send(None)  # :102
                    return
        finally:
            token_ticker.stop()  # :81


class _TokenSimpleChan:
    """``tokenSimple`` before the fix: ``simpleTokensMu`` is an RWMutex held across the sends."""

    @go_func("newTokenProviderSimple", "simple_token.go:225")
    def __init__(self):
        self.simple_tokens_mu = gosim.RWMutex("simpleTokensMu")
        self.simple_tokens = gosim.Map(name="simpleTokens")
        self.simple_token_keeper = None

    @go_func("tokenSimple.enable", "simple_token.go:166")
    def enable(self):
        self.simple_token_keeper = _KeeperChan(self._deleter())  # :167

    @go_func("newDeleterFunc", "simple_token.go:155")
    def _deleter(self):
        @go_func("newDeleterFunc.func1", "simple_token.go:156")
        def delete_token(tk):
            self.simple_tokens_mu.lock()  # :157
            try:
                username, ok = self.simple_tokens.lookup(tk)  # :159
                if ok:
                    del self.simple_tokens[tk]  # :161
            finally:
                self.simple_tokens_mu.unlock()  # :158

        return delete_token

    @go_func("tokenSimple.assignSimpleTokenToUser", "simple_token.go:130")
    def assign_simple_token_to_user(self, username, token):
        self.simple_tokens_mu.lock()  # :131
        _, ok = self.simple_tokens.lookup(token)  # :133
        assert not ok, f"token {token} is already used"  # :135 plog.Panicf
        self.simple_tokens[token] = username  # :138
        self.simple_token_keeper.add_simple_token(token)  # :139
        self.simple_tokens_mu.unlock()  # :140

    @go_func("tokenSimple.info", "simple_token.go:181")
    def info(self, token):
        self.simple_tokens_mu.rlock()  # :186
        try:
            username, ok = self.simple_tokens.lookup(token)  # :188
            if ok:
                self.simple_token_keeper.reset_simple_token(token)  # :190
        finally:
            self.simple_tokens_mu.runlock()  # :187
        return username, ok


# ---------------------------------------------------------------------------- after #7492
class _KeeperMu:
    """``simpleTokenTTLKeeper`` after the fix: callers change the map under ``tokensMu``."""

    @go_func("NewSimpleTokenTTLKeeper", "simple_token.go:50")
    def __init__(self, delete_token_func):
        self.tokens_mu = gosim.Mutex("tokensMu")
        self.tokens = gosim.Map(name="tokens")
        self.stop_ch = gosim.Chan(name="stopCh")
        self.delete_token_func = delete_token_func
        gosim.go(self.run, name="simpleTokenTTLKeeper.run")

    @go_func("simpleTokenTTLKeeper.addSimpleToken", "simple_token.go:67")
    def add_simple_token(self, token):
        self.tokens[token] = gosim.now() + SIMPLE_TOKEN_TTL  # :68

    @go_func("simpleTokenTTLKeeper.resetSimpleToken", "simple_token.go:71")
    def reset_simple_token(self, token):
        _, ok = self.tokens.lookup(token)  # :72
        if ok:
            self.tokens[token] = gosim.now() + SIMPLE_TOKEN_TTL  # :73

    @go_func("simpleTokenTTLKeeper.run", "simple_token.go:81")
    def run(self):
        token_ticker = gosim.new_ticker(SIMPLE_TOKEN_TTL_RESOLUTION, name="tokenTicker")  # :82
        try:
            while True:
                idx, v, _ = gosim.select(gosim.recv_case(token_ticker.c), gosim.recv_case(self.stop_ch))  # :85
                if idx == 0:
                    nowtime = gosim.now()
                    self.tokens_mu.lock()  # :88
                    for t, tokenendtime in self.tokens.items():  # :89
                        if nowtime > tokenendtime:
                            self.delete_token_func(t)  # :91
                            del self.tokens[t]  # :92
                    self.tokens_mu.unlock()  # :95
                else:
                    self.tokens = gosim.Map(name="tokens")
                    v.send(None)
                    return
        finally:
            token_ticker.stop()  # :83

    @go_func("simpleTokenTTLKeeper.stop", "simple_token.go:60")
    def stop(self):
        wait_ch = gosim.Chan(name="waitCh")
        self.stop_ch.send(wait_ch)
        wait_ch.recv()
        self.stop_ch.close()


class _TokenSimpleMu(_TokenSimpleChan):
    """``tokenSimple`` after the fix: a plain Mutex, always taken after the keeper's. The
    deleter (``newDeleterFunc``) is the same code after the fix, two lines further down (:157);
    the inherited one cites the lines before it."""

    @go_func("newTokenProviderSimple", "simple_token.go:226")
    def __init__(self):
        super().__init__()
        self.simple_tokens_mu = gosim.Mutex("simpleTokensMu")

    @go_func("tokenSimple.enable", "simple_token.go:168")
    def enable(self):
        self.simple_token_keeper = _KeeperMu(self._deleter())

    @go_func("tokenSimple.assignSimpleTokenToUser", "simple_token.go:126")
    def assign_simple_token_to_user(self, username, token):
        self.simple_token_keeper.tokens_mu.lock()  # :127
        self.simple_tokens_mu.lock()  # :128
        _, ok = self.simple_tokens.lookup(token)
        assert not ok, f"token {token} is already used"
        self.simple_tokens[token] = username
        self.simple_token_keeper.add_simple_token(token)
        self.simple_tokens_mu.unlock()  # :137
        self.simple_token_keeper.tokens_mu.unlock()  # :138

    @go_func("tokenSimple.info", "simple_token.go:182")
    def info(self, token):
        self.simple_token_keeper.tokens_mu.lock()  # :186
        self.simple_tokens_mu.lock()  # :187
        username, ok = self.simple_tokens.lookup(token)
        if ok:
            self.simple_token_keeper.reset_simple_token(token)
        self.simple_tokens_mu.unlock()  # :192
        self.simple_token_keeper.tokens_mu.unlock()  # :193
        return username, ok


# ---------------------------------------------------------------------------- the scenario
@not_ported("builds the scenario's main for one variant")
def _scenario(token_simple_cls):
    @not_ported("scenario driver: an idle token, then a benchmark client's two connections")
    def main():
        ts = token_simple_cls()
        ts.enable()
        # the apply loop (one goroutine in etcd) issues tokens; main stands for it
        ts.assign_simple_token_to_user("root", "idle.1")
        gosim.sleep(SIMPLE_TOKEN_TTL)
        ts.assign_simple_token_to_user("bench", "bench.2")
        wg = gosim.WaitGroup("clients")

        @not_ported("test double: one client connection sending a request per period")
        def client(period):  # one connection: a request per period, each checked by AuthInfoFromCtx
            for _ in range(REQUESTS):
                gosim.sleep(period)
                ts.info("bench.2")  # an unknown token is an auth error for this request, not a crash
            wg.done()

        wg.add(len(CLIENT_PERIODS))
        for i, period in enumerate(CLIENT_PERIODS):
            gosim.go(client, period, name=f"client{i + 1}")
        wg.wait()
        ts.simple_token_keeper.stop()  # disable() on shutdown

    return main


buggy = _scenario(_TokenSimpleChan)
fixed = _scenario(_TokenSimpleMu)
buggy.__doc__ = "The scenario before the upstream fix (fails under some schedule; see KINDS)."
fixed.__doc__ = "The scenario after the upstream fix (never fails)."
