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

// TestEvidenceGoesWhereTheContextSays: a probe's response goes to the evidence its
// context carries, and nowhere when the context carries none or is quiet.
func TestEvidenceGoesWhereTheContextSays(t *testing.T) {
	mine, theirs := &evidence{}, &evidence{}
	ctx := withEvidence(context.Background(), mine)
	record(ctx, Response{Status: 200})
	record(withEvidence(context.Background(), theirs), Response{Status: 503})
	record(quiet(ctx), Response{Status: 404})
	record(context.Background(), Response{Status: 500})
	if got, _ := mine.Take(); len(got) != 1 || got[0].Status != 200 {
		t.Errorf("this test's evidence: %+v, want its one 200", got)
	}
	if got, _ := theirs.Take(); len(got) != 1 || got[0].Status != 503 {
		t.Errorf("the other run's evidence: %+v, want its one 503", got)
	}
}

func TestRedaction(t *testing.T) {
	h := http.Header{"Authorization": {"Bearer secret"}, "Impersonate-User": {"alice"}}
	r := redacted(h)
	if r.Get("Authorization") != "[redacted]" || r.Get("Impersonate-User") != "alice" || h.Get("Authorization") != "Bearer secret" {
		t.Errorf("redacted %v from %v", r, h)
	}
}
