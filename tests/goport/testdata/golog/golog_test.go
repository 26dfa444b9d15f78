package golog

import (
	"log"
	"testing"
)

func TestLogOrdersTheHandOff(t *testing.T) {
	rec := &recorder{}
	if handOff(log.New(rec, "", 0), rec) != 1 {
		t.Fatal("B read before A wrote")
	}
}

func TestReadBeforeTheWriteRaces(t *testing.T) {
	rec := &recorder{}
	readFirst(log.New(rec, "", 0), rec)
}

func TestNoLogNoOrder(t *testing.T) {
	noLog()
}

func TestStdLogger(t *testing.T) {
	if viaStd() != 2 {
		t.Fatal("lost the write")
	}
}
