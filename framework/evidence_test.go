package framework

import (
	"context"
	"net/http"
	"testing"
)

// TestEvidenceKeepsHeadAndTail: under a load, the first and the latest responses are
// kept (how the test began and what happened when it failed) and the rest counted.
func TestEvidenceKeepsHeadAndTail(t *testing.T) {
	e := &evidence{}
	total := evidenceHead + evidenceTail + 250
	for i := 0; i < total; i++ {
		e.add(Response{Status: i})
	}
	got, dropped := e.Take()
	if len(got) != evidenceHead+evidenceTail || dropped != 250 {
		t.Fatalf("kept %d, dropped %d; want %d and 250", len(got), dropped, evidenceHead+evidenceTail)
	}
	if got[0].Status != 0 || got[evidenceHead-1].Status != evidenceHead-1 || got[evidenceHead].Status != evidenceHead+250 || got[len(got)-1].Status != total-1 {
		t.Errorf("order: first %d, end of head %d, start of tail %d, last %d", got[0].Status, got[evidenceHead-1].Status, got[evidenceHead].Status, got[len(got)-1].Status)
	}
	if again, d := e.Take(); len(again) != 0 || d != 0 {
		t.Errorf("Take did not start afresh: %d kept, %d dropped", len(again), d)
	}
}

func TestQuietContextAndRedaction(t *testing.T) {
	if isQuiet(context.Background()) || !isQuiet(quiet(context.Background())) {
		t.Error("quiet marks a context, and only that one")
	}
	h := http.Header{"Authorization": {"Bearer secret"}, "Impersonate-User": {"alice"}}
	r := redacted(h)
	if r.Get("Authorization") != "[redacted]" || r.Get("Impersonate-User") != "alice" || h.Get("Authorization") != "Bearer secret" {
		t.Errorf("redacted %v from %v", r, h)
	}
}
