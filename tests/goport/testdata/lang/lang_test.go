package lang

import "testing"

func TestLabelledLoops(t *testing.T)          { LabelledLoops() }
func TestBreakInSwitchAndSelect(t *testing.T) { BreakInSwitchAndSelect() }
func TestFallthrough(t *testing.T)            { Fallthrough() }

func TestEmbeddedPromotes(t *testing.T)    { EmbeddedPromotes() }
func TestEmbeddedMutex(t *testing.T)       { EmbeddedMutex() }
func TestEmbeddedMutexMissed(t *testing.T) { EmbeddedMutexMissed() }
func TestNilEmbeddedPointer(t *testing.T)  { NilEmbeddedPointer() }

func TestTypeAssertions(t *testing.T)           { TypeAssertions() }
func TestFailedAssertionPanics(t *testing.T)    { FailedAssertionPanics() }
func TestFailedAssertionToPointer(t *testing.T) { FailedAssertionToPointer() }
func TestNilAssertionPanics(t *testing.T)       { NilAssertionPanics() }

func TestSlicesAlias(t *testing.T)      { SlicesAlias() }
func TestSliceOutOfRange(t *testing.T)  { SliceOutOfRange() }
func TestSliceInverted(t *testing.T)    { SliceInverted() }
func TestAppendSharedRace(t *testing.T) { AppendSharedRace() }

func TestAtomicsOrder(t *testing.T)       { AtomicsOrder() }
func TestAtomicFlagTooEarly(t *testing.T) { AtomicFlagTooEarly() }
func TestSyncMapOps(t *testing.T)         { SyncMapOps() }
func TestSyncMapPublishes(t *testing.T)   { SyncMapPublishes() }

func TestPackageVars(t *testing.T)    { PackageVars() }
func TestPackageVarRace(t *testing.T) { PackageVarRace() }

// t.Run: each subtest is a goroutine the parent waits for (no race on order); a subtest's Fatal
// ends it alone and fails the parent.
func TestSubtests(t *testing.T) {
	order := ""
	ok1 := t.Run("first", func(t *testing.T) { order += "a" })
	ok2 := t.Run("second", func(t *testing.T) {
		t.Cleanup(func() { order += "c" })
		order += "b"
	})
	if !ok1 || !ok2 || order != "abc" {
		t.Fatalf("order %q %v %v", order, ok1, ok2)
	}
}

func TestSubtestFails(t *testing.T) {
	reached := false
	ok := t.Run("fails", func(t *testing.T) {
		t.Fatal("stop")
		reached = true
	})
	if ok || reached {
		panic("the subtest went on")
	}
}

func TestStructFieldAssignRace(t *testing.T)    { StructFieldAssignRace() }
func TestStructFieldAssignOrdered(t *testing.T) { StructFieldAssignOrdered() }
func TestSyncLiterals(t *testing.T)             { SyncLiterals() }
func TestAppendNilSpread(t *testing.T)          { AppendNilSpread() }
func TestPkgVarInMethod(t *testing.T)           { PkgVarInMethod() }
func TestAtoi(t *testing.T)                     { Atoi() }
func TestLocalsKeepModuleNames(t *testing.T) { LocalsKeepModuleNames() }
func TestAssignPhases(t *testing.T)          { AssignPhases() }
func TestOpAssignOnce(t *testing.T)          { OpAssignOnce() }
func TestBuildSelection(t *testing.T)        { result("%s, %s, %s", platform(), release(), raceTag()) }
func TestIntWrap(t *testing.T)                { IntWrap() }
func TestFmtVerbs(t *testing.T)               { FmtVerbs() }
func TestLigatureLocals(t *testing.T)         { LigatureLocals() }

func TestFmtComposites(t *testing.T) { FmtComposites() }

func TestIfaceKeys(t *testing.T) { IfaceKeys() }
func TestFmtDynamic(t *testing.T)     { FmtDynamic() }
func TestFmtMethods(t *testing.T)     { FmtMethods() }
func TestPanicComposite(t *testing.T) { PanicComposite() }
func TestPanicPointer(t *testing.T)   { PanicPointer() }

// TestFatalfMessage: t.Fatalf's message (the port keeps it in its failure) is the text Go prints.
func TestFatalfMessage(t *testing.T) {
	t.Fatalf("got %v want %+v, %v", map[int]fmtPoint{2: {2, "b"}, 1: {1, "a"}}, &fmtPoint{2, "b"}, []*fmtPoint{nil})
}
