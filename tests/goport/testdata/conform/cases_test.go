package conform

import "testing"

func TestCloseClosedChan(t *testing.T) { CloseClosedChan() }

func TestCondBroadcastWakesAll(t *testing.T) { CondBroadcastWakesAll() }

func TestSendOnClosedWhileBlocked(t *testing.T) { SendOnClosedWhileBlocked() }

func TestRecvClosedAfterDrain(t *testing.T) { RecvClosedAfterDrain() }

func TestSelectDefaultNothingReady(t *testing.T) { SelectDefaultNothingReady() }

func TestSelectDefaultReady(t *testing.T) { SelectDefaultReady() }

func TestRangeOverClosedChan(t *testing.T) { RangeOverClosedChan() }

func TestStructValueSemantics(t *testing.T) { StructValueSemantics() }

func TestClosurePerIteration(t *testing.T) { ClosurePerIteration() }

func TestDeferOrderAndErrors(t *testing.T) { DeferOrderAndErrors() }

func TestSwitchAndIntDivision(t *testing.T) { SwitchAndIntDivision() }

// The testing.T model: Errorf fails the test and goes on; Fatal ends it (deferred calls and
// cleanups still run); a cleanup's own Fatalf fails it too.
func TestErrorfFails(t *testing.T) {
	t.Helper()
	t.Errorf("bad %d", 1)
}

func TestFatalEndsTheTest(t *testing.T) {
	defer func() {}()
	t.Fatal("stop")
	panic("not reached")
}

func TestCleanupRunsLastFirst(t *testing.T) {
	order := ""
	t.Cleanup(func() {
		if order != "b" {
			t.Fatalf("cleanups ran in order %q", order)
		}
	})
	t.Cleanup(func() { order += "b" })
}

func TestPasses(t *testing.T) {
	if classify(3) != "fizz" {
		t.Fatal("classify")
	}
}

func TestCopiesAndInterfaces(t *testing.T) { CopiesAndInterfaces() }

func TestEmptyStructChannel(t *testing.T) { EmptyStructChannel() }
