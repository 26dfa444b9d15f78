//go:build fixed

package hc16

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

type simpleTokenTTLKeeper struct {
	tokensMu        sync.Mutex
	tokens          map[string]time.Time
	stopCh          chan chan struct{}
	deleteTokenFunc func(string)
}

// upstream: etcd-io/etcd auth/simple_token.go:50-58 @1b1fabef8ffec606909f01c3983300fff539f214
func NewSimpleTokenTTLKeeper(deletefunc func(string)) *simpleTokenTTLKeeper {
	stk := &simpleTokenTTLKeeper{
		tokens:          make(map[string]time.Time),
		stopCh:          make(chan chan struct{}),
		deleteTokenFunc: deletefunc,
	}
	go stk.run()
	return stk
}

// upstream: etcd-io/etcd auth/simple_token.go:60-65 @1b1fabef8ffec606909f01c3983300fff539f214
func (tm *simpleTokenTTLKeeper) stop() {
	waitCh := make(chan struct{})
	tm.stopCh <- waitCh
	<-waitCh
	close(tm.stopCh)
}

// upstream: etcd-io/etcd auth/simple_token.go:67-69 @1b1fabef8ffec606909f01c3983300fff539f214
func (tm *simpleTokenTTLKeeper) addSimpleToken(token string) {
	tm.tokens[token] = time.Now().Add(simpleTokenTTL)
}

// upstream: etcd-io/etcd auth/simple_token.go:71-75 @1b1fabef8ffec606909f01c3983300fff539f214
func (tm *simpleTokenTTLKeeper) resetSimpleToken(token string) {
	if _, ok := tm.tokens[token]; ok {
		tm.tokens[token] = time.Now().Add(simpleTokenTTL)
	}
}

// upstream: etcd-io/etcd auth/simple_token.go:81-102 @1b1fabef8ffec606909f01c3983300fff539f214
func (tm *simpleTokenTTLKeeper) run() {
	tokenTicker := time.NewTicker(simpleTokenTTLResolution)
	defer tokenTicker.Stop()
	for {
		select {
		case <-tokenTicker.C:
			nowtime := time.Now()
			tm.tokensMu.Lock()
			for t, tokenendtime := range tm.tokens {
				if nowtime.After(tokenendtime) {
					tm.deleteTokenFunc(t)
					delete(tm.tokens, t)
				}
			}
			tm.tokensMu.Unlock()
		case waitCh := <-tm.stopCh:
			tm.tokens = make(map[string]time.Time)
			waitCh <- struct{}{}
			return
		}
	}
}

type tokenSimple struct {
	indexWaiter       func(uint64) <-chan struct{}
	simpleTokenKeeper *simpleTokenTTLKeeper
	simpleTokensMu    sync.Mutex
	simpleTokens      map[string]string // token -> username
}

// upstream: etcd-io/etcd auth/simple_token.go:126-139 @1b1fabef8ffec606909f01c3983300fff539f214
func (t *tokenSimple) assignSimpleTokenToUser(username, token string) {
	t.simpleTokenKeeper.tokensMu.Lock()
	t.simpleTokensMu.Lock()

	_, ok := t.simpleTokens[token]
	if ok {
		panic(fmt.Sprintf("token %s is alredy used", token))
	}

	t.simpleTokens[token] = username
	t.simpleTokenKeeper.addSimpleToken(token)
	t.simpleTokensMu.Unlock()
	t.simpleTokenKeeper.tokensMu.Unlock()
}

// upstream: etcd-io/etcd auth/simple_token.go:157-166 @1b1fabef8ffec606909f01c3983300fff539f214
func newDeleterFunc(t *tokenSimple) func(string) {
	return func(tk string) {
		t.simpleTokensMu.Lock()
		defer t.simpleTokensMu.Unlock()
		if _, ok := t.simpleTokens[tk]; ok {
			delete(t.simpleTokens, tk)
		}
	}
}

// upstream: etcd-io/etcd auth/simple_token.go:168-170 @1b1fabef8ffec606909f01c3983300fff539f214
func (t *tokenSimple) enable() {
	t.simpleTokenKeeper = NewSimpleTokenTTLKeeper(newDeleterFunc(t))
}

// upstream: etcd-io/etcd auth/simple_token.go:172-180 @1b1fabef8ffec606909f01c3983300fff539f214
func (t *tokenSimple) disable() {
	if t.simpleTokenKeeper != nil {
		t.simpleTokenKeeper.stop()
		t.simpleTokenKeeper = nil
	}
	t.simpleTokensMu.Lock()
	t.simpleTokens = make(map[string]string) // invalidate all tokens
	t.simpleTokensMu.Unlock()
}

// upstream: etcd-io/etcd auth/simple_token.go:182-195 @1b1fabef8ffec606909f01c3983300fff539f214
func (t *tokenSimple) info(ctx context.Context, token string, revision uint64) (*AuthInfo, bool) {
	if !t.isValidSimpleToken(ctx, token) {
		return nil, false
	}
	t.simpleTokenKeeper.tokensMu.Lock()
	t.simpleTokensMu.Lock()
	username, ok := t.simpleTokens[token]
	if ok {
		t.simpleTokenKeeper.resetSimpleToken(token)
	}
	t.simpleTokensMu.Unlock()
	t.simpleTokenKeeper.tokensMu.Unlock()
	return &AuthInfo{Username: username, Revision: revision}, ok
}

// upstream: etcd-io/etcd auth/simple_token.go:207-224 @1b1fabef8ffec606909f01c3983300fff539f214
func (t *tokenSimple) isValidSimpleToken(ctx context.Context, token string) bool {
	splitted := strings.Split(token, ".")
	if len(splitted) != 2 {
		return false
	}
	index, err := strconv.Atoi(splitted[1])
	if err != nil {
		return false
	}

	select {
	case <-t.indexWaiter(uint64(index)):
		return true
	case <-ctx.Done():
	}

	return false
}

// upstream: etcd-io/etcd auth/simple_token.go:226-231 @1b1fabef8ffec606909f01c3983300fff539f214
func newTokenProviderSimple(indexWaiter func(uint64) <-chan struct{}) *tokenSimple {
	return &tokenSimple{
		simpleTokens: make(map[string]string),
		indexWaiter:  indexWaiter,
	}
}
