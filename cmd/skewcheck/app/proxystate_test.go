package app

import (
	"bytes"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/framework/report"
)

// The summary leads with the one cause when a server's proxy is inert, before the table
// of the failures it explains, and still ends with the closing line CI greps for.
func TestSummaryLeadsWithTheInertProxy(t *testing.T) {
	rep := &report.Conformance{
		Tests: []report.Test{{ID: "MVP-001", Profile: "mvp", Result: report.Failed, Failure: "want 200, got 404"}},
		ProxyState: &report.ProxyState{Verdict: "The Mixed Version Proxy is inert on cp-1: the gate is on, but no --peer-ca-file; during an upgrade clients get 404 for batch/v1/jobs.",
			Inert: []string{"cp-1"}, Fix: "kubeadm sets no --peer-ca-file.", Issue: "https://github.com/kubernetes/kubeadm/issues/3301"},
	}
	var out bytes.Buffer
	printSummary(&out, rep, []string{"r.json"})
	s := out.String()
	cause, table := strings.Index(s, "ONE CAUSE: The Mixed Version Proxy is inert on cp-1"), strings.Index(s, "MVP-001")
	if cause < 0 || table < 0 || cause > table || !strings.Contains(s, "fix: kubeadm sets no --peer-ca-file.") {
		t.Errorf("the cause does not lead the summary:\n%s", s)
	}
	if !strings.HasSuffix(s, report.ClosingLine(rep)+"\n") {
		t.Errorf("the closing line is not last:\n%s", s)
	}
	out.Reset()
	rep.ProxyState.Inert = nil
	printSummary(&out, rep, []string{"r.json"})
	if strings.Contains(out.String(), "ONE CAUSE") {
		t.Errorf("no inert server, yet:\n%s", out.String())
	}
}
