//go:build !fixed

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
	tokens              map[string]time.Time
	addSimpleTokenCh    chan string
	resetSimpleTokenCh  chan string
	deleteSimpleTokenCh chan string
	stopCh              chan chan struct{}
	deleteTokenFunc     func(string)
}

// upstream: etcd-io/etcd auth/simple_token.go:48-59 @51939650057d602bb5ab090633138fffe36854dc
func NewSimpleTokenTTLKeeper(deletefunc func(string)) *simpleTokenTTLKeeper {
	stk := &simpleTokenTTLKeeper{
		tokens:              make(map[string]time.Time),
		addSimpleTokenCh:    make(chan string, 1),
		resetSimpleTokenCh:  make(chan string, 1),
		deleteSimpleTokenCh: make(chan string, 1),
		stopCh:              make(chan chan struct{}),
		deleteTokenFunc:     deletefunc,
	}
	go stk.run()
	return stk
}

// upstream: etcd-io/etcd auth/simple_token.go:61-66 @51939650057d602bb5ab090633138fffe36854dc
func (tm *simpleTokenTTLKeeper) stop() {
	waitCh := make(chan struct{})
	tm.stopCh <- waitCh
	<-waitCh
	close(tm.stopCh)
}

// upstream: etcd-io/etcd auth/simple_token.go:68-70 @51939650057d602bb5ab090633138fffe36854dc
func (tm *simpleTokenTTLKeeper) addSimpleToken(token string) {
	tm.addSimpleTokenCh <- token
}

// upstream: etcd-io/etcd auth/simple_token.go:72-74 @51939650057d602bb5ab090633138fffe36854dc
func (tm *simpleTokenTTLKeeper) resetSimpleToken(token string) {
	tm.resetSimpleTokenCh <- token
}

// upstream: etcd-io/etcd auth/simple_token.go:79-106 @51939650057d602bb5ab090633138fffe36854dc
func (tm *simpleTokenTTLKeeper) run() {
	tokenTicker := time.NewTicker(simpleTokenTTLResolution)
	defer tokenTicker.Stop()
	for {
		select {
		case t := <-tm.addSimpleTokenCh:
			tm.tokens[t] = time.Now().Add(simpleTokenTTL)
		case t := <-tm.resetSimpleTokenCh:
			if _, ok := tm.tokens[t]; ok {
				tm.tokens[t] = time.Now().Add(simpleTokenTTL)
			}
		case t := <-tm.deleteSimpleTokenCh:
			delete(tm.tokens, t)
		case <-tokenTicker.C:
			nowtime := time.Now()
			for t, tokenendtime := range tm.tokens {
				if nowtime.After(tokenendtime) {
					tm.deleteTokenFunc(t)
					delete(tm.tokens, t)
				}
			}
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
	simpleTokensMu    sync.RWMutex
	simpleTokens      map[string]string // token -> username
}

// upstream: etcd-io/etcd auth/simple_token.go:130-141 @51939650057d602bb5ab090633138fffe36854dc
func (t *tokenSimple) assignSimpleTokenToUser(username, token string) {
	t.simpleTokensMu.Lock()

	_, ok := t.simpleTokens[token]
	if ok {
		panic(fmt.Sprintf("token %s is alredy used", token))
	}

	t.simpleTokens[token] = username
	t.simpleTokenKeeper.addSimpleToken(token)
	t.simpleTokensMu.Unlock()
}

// upstream: etcd-io/etcd auth/simple_token.go:155-164 @51939650057d602bb5ab090633138fffe36854dc
func newDeleterFunc(t *tokenSimple) func(string) {
	return func(tk string) {
		t.simpleTokensMu.Lock()
		defer t.simpleTokensMu.Unlock()
		if _, ok := t.simpleTokens[tk]; ok {
			delete(t.simpleTokens, tk)
		}
	}
}

// upstream: etcd-io/etcd auth/simple_token.go:166-168 @51939650057d602bb5ab090633138fffe36854dc
func (t *tokenSimple) enable() {
	t.simpleTokenKeeper = NewSimpleTokenTTLKeeper(newDeleterFunc(t))
}

// upstream: etcd-io/etcd auth/simple_token.go:170-179 @51939650057d602bb5ab090633138fffe36854dc
func (t *tokenSimple) disable() {
	if t.simpleTokenKeeper != nil {
		t.simpleTokenKeeper.stop()
		t.simpleTokenKeeper = nil
	}

	t.simpleTokensMu.Lock()
	t.simpleTokens = make(map[string]string) // invalidate all tokens
	t.simpleTokensMu.Unlock()
}

// upstream: etcd-io/etcd auth/simple_token.go:181-194 @51939650057d602bb5ab090633138fffe36854dc
func (t *tokenSimple) info(ctx context.Context, token string, revision uint64) (*AuthInfo, bool) {
	if !t.isValidSimpleToken(ctx, token) {
		return nil, false
	}

	t.simpleTokensMu.RLock()
	defer t.simpleTokensMu.RUnlock()
	username, ok := t.simpleTokens[token]
	if ok {
		t.simpleTokenKeeper.resetSimpleToken(token)
	}

	return &AuthInfo{Username: username, Revision: revision}, ok
}

// upstream: etcd-io/etcd auth/simple_token.go:206-223 @51939650057d602bb5ab090633138fffe36854dc
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

// upstream: etcd-io/etcd auth/simple_token.go:225-230 @51939650057d602bb5ab090633138fffe36854dc
func newTokenProviderSimple(indexWaiter func(uint64) <-chan struct{}) *tokenSimple {
	return &tokenSimple{
		simpleTokens: make(map[string]string),
		indexWaiter:  indexWaiter,
	}
}
