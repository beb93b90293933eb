package dataplanetest

import (
	"runtime"
	"testing"
	"time"

	"github.com/skewcheck/skewcheck/framework"
)

func recorded() int {
	n := 0
	states.Range(func(any, any) bool { n++; return true })
	return n
}

// For shares one state per framework.Dataplane, and forgets it once the dataplane is gone:
// a process running many runs does not keep every run's record.
func TestForSharesStateAndForgetsItWithTheDataplane(t *testing.T) {
	before := recorded()
	d := &framework.Dataplane{Node: "node"}
	a, b := For(d), For(d)
	if a.state != b.state {
		t.Fatal("two For of one dataplane have two states: the NodePorts handed out would not hold across tests")
	}
	if For(&framework.Dataplane{Node: "node"}).state == a.state {
		t.Fatal("another dataplane shares the state")
	}
	runtime.KeepAlive(d)
	a, b, d = nil, nil, nil
	// Cleanups run on a goroutine of their own after a collection finds the object gone.
	for deadline := time.Now().Add(10 * time.Second); recorded() > before && time.Now().Before(deadline); {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if n := recorded(); n > before {
		t.Errorf("%d dataplanes' states still recorded after theirs went, want %d", n, before)
	}
}
