package framework

import (
	"encoding/json"
	"testing"
)

// /version of a server started with --emulated-version keeps the binary's gitVersion, major
// and minor and names the emulated release in emulationMajor and emulationMinor, which every
// server from 1.31 on reports, emulating or not (k8s.io/component-base compatibility
// version.go Info).
func TestEmulationFromVersion(t *testing.T) {
	for _, tc := range []struct {
		name, body, want string
	}{
		{"emulating", `{"major":"1","minor":"36","emulationMajor":"1","emulationMinor":"35","minCompatibilityMajor":"1","minCompatibilityMinor":"34","gitVersion":"v1.36.3"}`, "1.35"},
		{"its own release", `{"major":"1","minor":"36","emulationMajor":"1","emulationMinor":"36","gitVersion":"v1.36.3"}`, ""},
		{"before 1.31", `{"major":"1","minor":"30","gitVersion":"v1.30.14"}`, ""},
	} {
		var v versionInfo
		if err := json.Unmarshal([]byte(tc.body), &v); err != nil {
			t.Fatal(err)
		}
		if got := v.emulation(); got != tc.want {
			t.Errorf("%s: emulation() = %q, want %q", tc.name, got, tc.want)
		}
	}
}
