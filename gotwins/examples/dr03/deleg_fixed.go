//go:build fixed

package dr03

import "sync"

// loggerPromise knows how to populate a concrete logr.Logger
// with options, given an actual base logger later on down the line.
type loggerPromise struct {
	logger        *DelegatingLogger
	childPromises []*loggerPromise
	promisesLock  sync.Mutex

	name  *string
	tags  []interface{}
	level int
}

// upstream: kubernetes-sigs/controller-runtime pkg/log/deleg.go:37-48 @ad730f811ec6f6ceeb95c66270815f9af0b7af9e
func (p *loggerPromise) WithName(l *DelegatingLogger, name string) *loggerPromise {
	res := &loggerPromise{
		logger:       l,
		name:         &name,
		promisesLock: sync.Mutex{},
	}

	p.promisesLock.Lock()
	defer p.promisesLock.Unlock()
	p.childPromises = append(p.childPromises, res)
	return res
}

// upstream: kubernetes-sigs/controller-runtime pkg/log/deleg.go:64-75 @ad730f811ec6f6ceeb95c66270815f9af0b7af9e
func (p *loggerPromise) V(l *DelegatingLogger, level int) *loggerPromise {
	res := &loggerPromise{
		logger:       l,
		level:        level,
		promisesLock: sync.Mutex{},
	}

	p.promisesLock.Lock()
	defer p.promisesLock.Unlock()
	p.childPromises = append(p.childPromises, res)
	return res
}

// upstream: kubernetes-sigs/controller-runtime pkg/log/deleg.go:78-99 @ad730f811ec6f6ceeb95c66270815f9af0b7af9e
func (p *loggerPromise) Fulfill(parentLogger Logger) {
	var logger = parentLogger
	if p.name != nil {
		logger = logger.WithName(*p.name)
	}

	if p.tags != nil {
		logger = logger.WithValues(p.tags...)
	}
	if p.level != 0 {
		logger = logger.V(p.level)
	}

	p.logger.lock.Lock()
	p.logger.logger = logger
	p.logger.promise = nil
	p.logger.lock.Unlock()

	for _, childPromise := range p.childPromises {
		childPromise.Fulfill(logger)
	}
}

// DelegatingLogger is a logr.Logger that delegates to another logr.Logger.
type DelegatingLogger struct {
	lock    sync.RWMutex
	logger  Logger
	promise *loggerPromise
}

// upstream: kubernetes-sigs/controller-runtime pkg/log/deleg.go:127-131 @ad730f811ec6f6ceeb95c66270815f9af0b7af9e
func (l *DelegatingLogger) Info(msg string, keysAndValues ...interface{}) {
	l.lock.RLock()
	defer l.lock.RUnlock()
	l.logger.Info(msg, keysAndValues...)
}

// upstream: kubernetes-sigs/controller-runtime pkg/log/deleg.go:151-164 @ad730f811ec6f6ceeb95c66270815f9af0b7af9e
func (l *DelegatingLogger) V(level int) Logger {
	l.lock.RLock()
	defer l.lock.RUnlock()

	if l.promise == nil {
		return l.logger.V(level)
	}

	res := &DelegatingLogger{logger: l.logger}
	promise := l.promise.V(res, level)
	res.promise = promise

	return res
}

// upstream: kubernetes-sigs/controller-runtime pkg/log/deleg.go:167-180 @ad730f811ec6f6ceeb95c66270815f9af0b7af9e
func (l *DelegatingLogger) WithName(name string) Logger {
	l.lock.RLock()
	defer l.lock.RUnlock()

	if l.promise == nil {
		return l.logger.WithName(name)
	}

	res := &DelegatingLogger{logger: l.logger}
	promise := l.promise.WithName(res, name)
	res.promise = promise

	return res
}

// Its promise branch (a child promise, as WithName's) is left out: the scenario never calls it.
// upstream: kubernetes-sigs/controller-runtime pkg/log/deleg.go:183-196 @ad730f811ec6f6ceeb95c66270815f9af0b7af9e
func (l *DelegatingLogger) WithValues(tags ...interface{}) Logger {
	l.lock.RLock()
	defer l.lock.RUnlock()
	return l.logger.WithValues(tags...)
}

// upstream: kubernetes-sigs/controller-runtime pkg/log/deleg.go:201-205 @ad730f811ec6f6ceeb95c66270815f9af0b7af9e
func (l *DelegatingLogger) Fulfill(actual Logger) {
	if l.promise != nil {
		l.promise.Fulfill(actual)
	}
}

// upstream: kubernetes-sigs/controller-runtime pkg/log/deleg.go:209-216 @ad730f811ec6f6ceeb95c66270815f9af0b7af9e
func NewDelegatingLogger(initial Logger) *DelegatingLogger {
	l := &DelegatingLogger{
		logger:  initial,
		promise: &loggerPromise{promisesLock: sync.Mutex{}},
	}
	l.promise.logger = l
	return l
}
