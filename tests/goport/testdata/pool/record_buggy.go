//go:build !fixed

package pool

func (p *Pool) record() {
	p.done++ // BUG: no lock
}

func (p *Pool) Done() int {
	return p.done
}
