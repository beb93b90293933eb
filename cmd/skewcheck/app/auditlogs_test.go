package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/framework"
)

func TestAttachAuditLogs(t *testing.T) {
	log := filepath.Join(t.TempDir(), "audit.log")
	os.WriteFile(log, nil, 0o644)
	target := &framework.Target{Endpoints: []*framework.Endpoint{{Name: "a"}}}
	if err := attachAuditLogs(target, map[string]string{"b": log}); err == nil || !strings.Contains(err.Error(), `no endpoint "b"`) {
		t.Errorf("an audit log for an unknown context: %v", err)
	}
	if err := attachAuditLogs(target, map[string]string{"a": "/nonexistent/audit.log"}); err == nil || !strings.Contains(err.Error(), "--audit-log-path") {
		t.Errorf("an unreadable audit log: %v", err)
	}
	if err := attachAuditLogs(target, map[string]string{"a": log}); err != nil || target.Endpoints[0].AuditLog != log {
		t.Errorf("a readable audit log is not attached: %v %q", err, target.Endpoints[0].AuditLog)
	}
}
