package generics

import "testing"

func TestGenericStructValues(t *testing.T)      { GenericStructValues() }
func TestGenericZeros(t *testing.T)             { GenericZeros() }
func TestGenericInstances(t *testing.T)         { GenericInstances() }
func TestGenericRace(t *testing.T)              { GenericRace() }
func TestGenericNoRace(t *testing.T)            { GenericNoRace() }
func TestStructKeys(t *testing.T)               { StructKeys() }
func TestStructKeyRace(t *testing.T)            { StructKeyRace() }
func TestMultiValueIntoInterfaces(t *testing.T) { MultiValueIntoInterfaces() }
func TestHTTPClients(t *testing.T)              { HTTPClients() }
func TestHTTPClientRace(t *testing.T)           { HTTPClientRace() }
func TestHTTPClientShared(t *testing.T)         { HTTPClientShared() }
func TestSortStrings(t *testing.T)              { SortStrings() }
