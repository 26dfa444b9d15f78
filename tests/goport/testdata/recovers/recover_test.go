package recovers

import "testing"

func TestRecovers(t *testing.T)               { Recovers() }
func TestRepanics(t *testing.T)               { Repanics() }
func TestPanicInDeferKeepsFirst(t *testing.T) { PanicInDeferKeepsFirst() }
