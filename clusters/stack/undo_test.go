package stack

import (
	"errors"
	"slices"
	"testing"
)

// The undo unmakes newest first, every step even after one fails, once however often it
// is run, and says every failure.
func TestUndoRunsNewestFirstOnceAndJoinsErrors(t *testing.T) {
	var ran []string
	errFront, errCluster := errors.New("front would not stop"), errors.New("cluster would not go")
	u := &undo{}
	u.push(func() error { ran = append(ran, "cluster"); return errCluster })
	u.push(func() error { ran = append(ran, "front"); return errFront })
	u.push(func() error { ran = append(ran, "dataplane"); return nil })
	err := u.run()
	if want := []string{"dataplane", "front", "cluster"}; !slices.Equal(ran, want) {
		t.Errorf("ran %v, want %v", ran, want)
	}
	if !errors.Is(err, errFront) || !errors.Is(err, errCluster) {
		t.Errorf("error %v, want both failures", err)
	}
	if again := u.run(); len(ran) != 3 || again != err {
		t.Errorf("a second run ran %v and returned %v; want nothing more run and the same error", ran, again)
	}
}

// An undo of nothing, or of steps that all succeed, says nothing.
func TestUndoOfNothingIsNil(t *testing.T) {
	if err := (&undo{}).run(); err != nil {
		t.Errorf("empty undo: %v", err)
	}
	u := &undo{}
	u.push(func() error { return nil })
	if err := u.run(); err != nil {
		t.Errorf("undo of a success: %v", err)
	}
}
