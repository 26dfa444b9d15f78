package scaledclock

import "testing"

func TestScenario(t *testing.T) {
	if err := WaitForSync(); err != nil {
		t.Fatal(err)
	}
}
