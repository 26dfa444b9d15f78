package ctxvalue

import "testing"

func TestContextValues(t *testing.T) { ContextValues() }

func TestContextDeadline(t *testing.T) { ContextDeadline() }
