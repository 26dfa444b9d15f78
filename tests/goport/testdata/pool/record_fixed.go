//go:build fixed

package pool

func (p *Pool) record() {
	p.mu.Lock()
	p.done++
	p.mu.Unlock()
}

func (p *Pool) Done() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.done
}
