package heartbeat

import (
	"sync/atomic"
	"testing"
	"time"
)

// Beats come every period while the work goes on and none after stop.
func TestEveryBeatsUntilStopped(t *testing.T) {
	var beats atomic.Int32
	stop := Every(5*time.Millisecond, func(time.Duration) { beats.Add(1) })
	deadline := time.Now().Add(5 * time.Second)
	for beats.Load() < 2 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	stop()
	stop()
	if beats.Load() < 2 {
		t.Fatalf("%d beats in 5 s at a 5 ms period", beats.Load())
	}
	after := beats.Load()
	time.Sleep(30 * time.Millisecond)
	if n := beats.Load(); n > after+1 { // one beat may already be on its way
		t.Errorf("%d beats after stop", n-after)
	}
}
