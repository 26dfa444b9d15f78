package named

import "testing"

func TestSetMethods(t *testing.T)            { SetMethods() }
func TestSetRace(t *testing.T)               { SetRace() }
func TestChanHandler(t *testing.T)           { ChanHandler() }
func TestSliceError(t *testing.T)            { SliceError() }
func TestFuncAndIntMethods(t *testing.T)     { FuncAndIntMethods() }
func TestCompareUncomparable(t *testing.T)   { CompareUncomparable() }
func TestArrayValues(t *testing.T)           { ArrayValues() }
func TestArrayOutOfRange(t *testing.T)       { ArrayOutOfRange() }
func TestArrayMethods(t *testing.T)          { ArrayMethods() }
func TestArrayElementRace(t *testing.T)      { ArrayElementRace() }
func TestArrayElementsApart(t *testing.T)    { ArrayElementsApart() }
func TestMapStructValues(t *testing.T)       { MapStructValues() }
func TestMapStructRace(t *testing.T)         { MapStructRace() }
func TestStructAssertions(t *testing.T)      { StructAssertions() }
func TestFailedStructAssertion(t *testing.T) { FailedStructAssertion() }
func TestElided(t *testing.T)                { Elided() }
func TestTimeIsZero(t *testing.T)            { TimeIsZero() }
func TestTypedNils(t *testing.T)           { TypedNils() }
func TestTypedNilDereference(t *testing.T) { TypedNilDereference() }
func TestTypedNilMapsCompare(t *testing.T) { TypedNilMapsCompare() }
func TestNamedIntInInterface(t *testing.T)     { NamedIntInInterface() }
func TestFailedNamedIntAssertion(t *testing.T) { FailedNamedIntAssertion() }
func TestFailedAssertionOfMutex(t *testing.T)  { FailedAssertionOfMutex() }
func TestValueMethodPanics(t *testing.T)  { ValueMethodPanics() }
func TestPointerAssertions(t *testing.T)      { PointerAssertions() }
func TestFailedPointerAssertion(t *testing.T) { FailedPointerAssertion() }
func TestStatusFuncAndType(t *testing.T)  { StatusFuncAndType() }
func TestElidedThroughAlias(t *testing.T) { ElidedThroughAlias() }
func TestDurationsPrint(t *testing.T)     { DurationsPrint() }
func TestDurationPanics(t *testing.T)     { DurationPanics() }
func TestNestedClosures(t *testing.T)    { NestedClosures() }
