//go:build fixed

package multi

import "example.com/multi/store"

func hit(c *store.Counter, k string) {
	c.Inc(k)
}
