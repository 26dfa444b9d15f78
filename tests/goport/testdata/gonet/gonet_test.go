package gonet

import "testing"

func TestEchoAndEOF(t *testing.T)              { EchoAndEOF() }
func TestReadFullShort(t *testing.T)           { ReadFullShort() }
func TestClosedConn(t *testing.T)              { ClosedConn() }
func TestCopyToDiscard(t *testing.T)           { CopyToDiscard() }
func TestWriteHappensBeforeRead(t *testing.T)  { WriteHappensBeforeRead() }
func TestUnorderedAccessRaces(t *testing.T)    { UnorderedAccessRaces() }
func TestEOFReadOrders(t *testing.T)           { EOFReadOrders() }
func TestFailedAssertionNamesOpError(t *testing.T) { FailedAssertionNamesOpError() }
