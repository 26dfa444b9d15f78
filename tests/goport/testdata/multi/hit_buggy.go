//go:build !fixed

package multi

import "example.com/multi/store"

func hit(c *store.Counter, k string) {
	c.IncUnlocked(k) // BUG: two handlers write the map at once
}
