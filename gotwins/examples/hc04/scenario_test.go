package hc04

import "testing"

// TestScenario is the Python case's main: Get over three Pods of one kind, which batchPerform
// runs at once.
func TestScenario(t *testing.T) {
	c := &Client{infos: Result{{"Pod", "v1", "web-0"}, {"Pod", "v1", "web-1"}, {"Pod", "v1", "web-2"}}}
	objs, err := c.Get("default")
	if err != nil {
		t.Fatal(err)
	}
	if len(objs["v1/Pod"]) != 3 {
		t.Fatalf("got %d pods, want 3", len(objs["v1/Pod"]))
	}
}
