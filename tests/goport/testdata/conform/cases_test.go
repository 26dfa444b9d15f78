package conform

import "testing"

func TestCloseClosedChan(t *testing.T) { CloseClosedChan() }

func TestSendOnClosedWhileBlocked(t *testing.T) { SendOnClosedWhileBlocked() }

func TestRecvClosedAfterDrain(t *testing.T) { RecvClosedAfterDrain() }

func TestSelectDefaultNothingReady(t *testing.T) { SelectDefaultNothingReady() }

func TestSelectDefaultReady(t *testing.T) { SelectDefaultReady() }

func TestRangeOverClosedChan(t *testing.T) { RangeOverClosedChan() }

func TestStructValueSemantics(t *testing.T) { StructValueSemantics() }

func TestClosurePerIteration(t *testing.T) { ClosurePerIteration() }

func TestDeferOrderAndErrors(t *testing.T) { DeferOrderAndErrors() }

func TestSwitchAndIntDivision(t *testing.T) { SwitchAndIntDivision() }
