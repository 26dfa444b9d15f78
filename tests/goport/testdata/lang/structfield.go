package lang

import "sync"

// A struct-valued field assigned as a whole: Go writes the struct's memory in place, so a
// goroutine reading one of its fields races with the assignment (client-go's
// le.observedRecord = record against IsLeader's le.observedRecord.HolderIdentity, DR-01).
type record struct {
	holder      string
	transitions int
}

type elector struct {
	observed record
}

func StructFieldAssignRace() {
	e := &elector{}
	done := make(chan struct{})
	go func() {
		e.observed = record{holder: "a", transitions: 1}
		close(done)
	}()
	_ = e.observed.holder
	<-done
}

// The same assignment ordered by the channel: no race, and a pointer to the field sees it.
func StructFieldAssignOrdered() {
	e := &elector{}
	p := &e.observed
	done := make(chan struct{})
	go func() {
		e.observed = record{holder: "a", transitions: 1}
		close(done)
	}()
	<-done
	if p.holder != "a" || e.observed.transitions != 1 {
		panic("lost the assignment")
	}
}

// sync values written as composite literals are their zero values (hc10's sync.WaitGroup{}).
type guarded struct {
	mu sync.Mutex
	n  int
}

func SyncLiterals() {
	g := &guarded{mu: sync.Mutex{}}
	wg := &sync.WaitGroup{}
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g.mu.Lock()
			g.n++
			g.mu.Unlock()
		}()
	}
	wg.Wait()
	if g.n != 2 {
		panic("lost an increment")
	}
}
