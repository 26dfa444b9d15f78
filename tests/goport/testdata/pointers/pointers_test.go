package pointers

import "testing"

func TestPointerBasics(t *testing.T)        { PointerBasics() }
func TestNilDeref(t *testing.T)             { NilDeref() }
func TestNilDerefRead(t *testing.T)         { NilDerefRead() }
func TestRangeAddresses(t *testing.T)       { RangeAddresses() }
func TestClosureAndPointer(t *testing.T)    { ClosureAndPointer() }
func TestDurationConversion(t *testing.T)   { DurationConversion() }
func TestPointerFieldRace(t *testing.T)     { PointerFieldRace() }
func TestPointerFieldOrdered(t *testing.T)  { PointerFieldOrdered() }
func TestPointerLocalRace(t *testing.T)     { PointerLocalRace() }
func TestPointerElemRace(t *testing.T)      { PointerElemRace() }
func TestPointerInStructLocked(t *testing.T) { PointerInStructLocked() }

func TestAtomicFuncs(t *testing.T)                { AtomicFuncs() }
func TestAtomicPublishes(t *testing.T)            { AtomicPublishes() }
func TestAtomicAddPlainReadRace(t *testing.T)     { AtomicAddPlainReadRace() }
func TestPlainWriteAtomicLoadRace(t *testing.T)   { PlainWriteAtomicLoadRace() }
func TestPlainReadAtomicLoad(t *testing.T)        { PlainReadAtomicLoad() }
func TestAtomicCounterThenPlainRead(t *testing.T) { AtomicCounterThenPlainRead() }
func TestFailedCASPlainReadRace(t *testing.T)     { FailedCASPlainReadRace() }
func TestAtomicNil(t *testing.T)                  { AtomicNil() }
func TestAtomicLoadThenPlainWriteRace(t *testing.T)    { AtomicLoadThenPlainWriteRace() }
func TestPlainReadAfterOneOfTwoStoresRace(t *testing.T) { PlainReadAfterOneOfTwoStoresRace() }
func TestPlainReadAfterStoreThenAdd(t *testing.T)       { PlainReadAfterStoreThenAdd() }
func TestStarStruct(t *testing.T)                 { StarStruct() }
func TestElemStructPointer(t *testing.T)          { ElemStructPointer() }
func TestStructVarPointer(t *testing.T)           { StructVarPointer() }
