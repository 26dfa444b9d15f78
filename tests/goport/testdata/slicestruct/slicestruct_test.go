package slicestruct

import "testing"

func TestStructSliceValues(t *testing.T)        { StructSliceValues() }
func TestStructPointerSliceShares(t *testing.T) { StructPointerSliceShares() }
func TestGrownPadding(t *testing.T)             { GrownPadding() }
