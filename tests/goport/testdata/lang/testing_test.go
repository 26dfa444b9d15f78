package lang

import "testing"

// t.Skip ends the test as skipped, a pass: Go's Goexit, so the deferred calls run and the line
// after it never does.
func TestSkipEndsTheTest(t *testing.T) {
	ran := false
	defer func() {
		if !ran {
			panic("the test did not run up to Skip")
		}
	}()
	ran = true
	t.Skip("not here")
	t.Fatal("after Skip")
}

// A test that failed before it skips still fails.
func TestSkipAfterErrorFails(t *testing.T) {
	t.Errorf("failed first")
	t.SkipNow()
}

// t.Name names the test, and a subtest as go test does (spaces become underscores); a skipped
// subtest leaves its parent neither skipped nor failed.
func TestNameOfTests(t *testing.T) {
	if t.Name() != "TestNameOfTests" {
		t.Fatalf("name %q", t.Name())
	}
	t.Run("a sub", func(t *testing.T) {
		if t.Name() != "TestNameOfTests/a_sub" {
			t.Fatalf("sub name %q", t.Name())
		}
		t.Skipf("skip %d", 1)
	})
	if t.Skipped() || t.Failed() {
		t.Fatal("the parent took its subtest's skip")
	}
}
