//go:build !fixed

package counter

func (c *Counter) Inc() {
	c.n++ // BUG: no lock; -race reports it even when the increments do not interleave
}
