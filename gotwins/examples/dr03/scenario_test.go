package dr03

import (
	"testing"
	"time"
)

// TestScenario is the Python case's main: the package's init started the fallback (Fulfill
// with a null logger after 30, s there, ms here); a controller logs through the package logger
// three times 20 apart, before and after it.
func TestScenario(t *testing.T) {
	for i := 0; i < 3; i++ {
		Log.V(1).Info("adding handler")
		time.Sleep(20 * time.Millisecond)
	}
}
