package lang

import "sync"

// Embedded fields: promoted fields and methods, through values, pointers and interfaces, and an
// embedded sync.Mutex whose promoted Lock/Unlock guard the struct.

type base struct {
	id   int
	name string
}

func (b base) describe() string { return b.name }

func (b *base) rename(n string) { b.name = n }

type named interface{ describe() string }

type item struct {
	base
	*extra
	qty int
}

type extra struct{ note string }

func (e *extra) annotate(s string) { e.note += s }

func EmbeddedPromotes() {
	it := item{base: base{id: 1, name: "a"}, extra: &extra{}, qty: 2}
	it.id = 7        // a promoted field, written
	it.rename("b")   // a promoted pointer method on the addressable value
	it.annotate("x") // through an embedded pointer
	c := it          // a copy copies the embedded value, shares the embedded pointer
	c.rename("c")
	c.annotate("y")
	var n named = &it // a promoted value method in the method set of *item
	p := &it
	p.qty++
	result("%d %s %s %s %s %d %s", it.id, it.name, c.name, n.describe(), it.note, p.qty, p.describe())
}

type counter struct {
	sync.Mutex
	n int
}

func (c *counter) inc() {
	c.Lock()
	c.n++
	c.Unlock()
}

func EmbeddedMutex() {
	c := &counter{}
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); c.inc() }()
	}
	wg.Wait()
	var l sync.Locker = c // the promoted methods make *counter a Locker
	l.Lock()
	n := c.n
	l.Unlock()
	result("%d", n)
}

type leaky struct {
	sync.Mutex
	n int
}

// The buggy shape: the embedded mutex exists but one writer does not take it.
func EmbeddedMutexMissed() {
	c := &leaky{}
	done := make(chan bool)
	go func() { c.Lock(); c.n++; c.Unlock(); done <- true }()
	c.n++
	<-done
}

func NilEmbeddedPointer() {
	var it item
	it.annotate("x")
}
