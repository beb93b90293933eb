package faults

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// fakeFault records what was asked of it; injectErr is what its Inject returns.
type fakeFault struct {
	injectErr error
	healed    int
}

func (f *fakeFault) Name() string { return "stop" }
func (f *fakeFault) Description() string {
	return "apiserver-1 stopped gracefully (SIGTERM), restarted on heal"
}
func (f *fakeFault) Inject(context.Context) error { return f.injectErr }
func (f *fakeFault) Heal(context.Context) error   { f.healed++; return nil }

// A failed injection is healed at once, since it may have taken effect (a graceful stop
// that ended in a kill left the server down for every test after it, 2026-12-02); a fault
// the machine cannot do at all did nothing and is not healed.
func TestFailedInjectionIsHealed(t *testing.T) {
	f := &fakeFault{injectErr: errors.New("apiserver-1 did not stop within 30s of SIGTERM and was killed")}
	heal, err := Inject(context.Background(), f)
	if heal != nil || err == nil || !strings.Contains(err.Error(), "was killed; healed what it may have done") {
		t.Errorf("Inject = %v, %v; want an error saying the fault was healed", heal != nil, err)
	}
	if f.healed != 1 {
		t.Errorf("healed %d times, want once", f.healed)
	}
	u := &fakeFault{injectErr: Unsupported{Reason: "no nft binary"}}
	if _, err := Inject(context.Background(), u); !errors.As(err, new(Unsupported)) || u.healed != 0 {
		t.Errorf("an unsupported fault: %v, healed %d times; want Unsupported and no heal", err, u.healed)
	}
}
