//go:build !fixed

package dr03

import "sync"

// loggerPromise knows how to populate a concrete logr.Logger
// with options, given an actual base logger later on down the line.
type loggerPromise struct {
	logger        *DelegatingLogger
	childPromises []*loggerPromise
	promisesLock  sync.Mutex

	name *string
	tags []interface{}
}

// upstream: kubernetes-sigs/controller-runtime pkg/log/deleg.go:37-48 @9e78e653228851684b6b9cdabe5aae8559fe3722
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

// upstream: kubernetes-sigs/controller-runtime pkg/log/deleg.go:65-83 @9e78e653228851684b6b9cdabe5aae8559fe3722
func (p *loggerPromise) Fulfill(parentLogger Logger) {
	var logger = parentLogger
	if p.name != nil {
		logger = logger.WithName(*p.name)
	}

	if p.tags != nil {
		logger = logger.WithValues(p.tags...)
	}

	p.logger.lock.Lock()
	p.logger.Logger = logger
	p.logger.promise = nil
	p.logger.lock.Unlock()

	for _, childPromise := range p.childPromises {
		childPromise.Fulfill(logger)
	}
}

// DelegatingLogger is a logr.Logger that delegates to another logr.Logger; V, Info are the
// embedded logger's, promoted (no lock).
type DelegatingLogger struct {
	lock sync.Mutex
	Logger
	promise *loggerPromise
}

// upstream: kubernetes-sigs/controller-runtime pkg/log/deleg.go:97-110 @9e78e653228851684b6b9cdabe5aae8559fe3722
func (l *DelegatingLogger) WithName(name string) Logger {
	l.lock.Lock()
	defer l.lock.Unlock()

	if l.promise == nil {
		return l.Logger.WithName(name)
	}

	res := &DelegatingLogger{Logger: l.Logger}
	promise := l.promise.WithName(res, name)
	res.promise = promise

	return res
}

// upstream: kubernetes-sigs/controller-runtime pkg/log/deleg.go:131-135 @9e78e653228851684b6b9cdabe5aae8559fe3722
func (l *DelegatingLogger) Fulfill(actual Logger) {
	if l.promise != nil {
		l.promise.Fulfill(actual)
	}
}

// upstream: kubernetes-sigs/controller-runtime pkg/log/deleg.go:139-146 @9e78e653228851684b6b9cdabe5aae8559fe3722
func NewDelegatingLogger(initial Logger) *DelegatingLogger {
	l := &DelegatingLogger{
		Logger:  initial,
		promise: &loggerPromise{promisesLock: sync.Mutex{}},
	}
	l.promise.logger = l
	return l
}
