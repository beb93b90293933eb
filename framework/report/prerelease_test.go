package report

import (
	"encoding/json"
	"strings"
	"testing"
)

// A run on a prerelease says so: per endpoint in the report (schema-valid, absent for a
// release, so older consumers see nothing new), and in one console line.
func TestPrereleaseIsReported(t *testing.T) {
	c := sample()
	if PrereleaseNote(c) != "" {
		t.Fatalf("a run of releases is reported as a prerelease's: %q", PrereleaseNote(c))
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), `"prerelease"`) {
		t.Errorf("a release's endpoint carries prerelease: %s", b)
	}

	c.Endpoints[1].Version, c.Endpoints[1].Prerelease = "v1.38.0-beta.0", true
	b, err = json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate(b); err != nil {
		t.Fatalf("a report with a prerelease endpoint does not match the schema: %v", err)
	}
	if !strings.Contains(string(b), `"version":"v1.38.0-beta.0","emulationVersion":"1.34","prerelease":true`) {
		t.Errorf("the endpoint does not say prerelease: %s", b)
	}
	want := "prerelease: apiserver-b runs v1.38.0-beta.0, a Kubernetes prerelease: what this run found holds for that build, and the release may differ"
	if got := PrereleaseNote(c); got != want {
		t.Errorf("PrereleaseNote =\n%q\nwant\n%q", got, want)
	}
	c.Endpoints[0].Version, c.Endpoints[0].Prerelease = "v1.38.0-rc.0", true
	if got := PrereleaseNote(c); !strings.HasPrefix(got, "prerelease: apiserver-a runs v1.38.0-rc.0, apiserver-b runs v1.38.0-beta.0, Kubernetes prereleases:") {
		t.Errorf("PrereleaseNote of two = %q", got)
	}
}
