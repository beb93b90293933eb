package app

import "testing"

// TestWholeVersion: --until takes a release with or without its v and a distribution's
// suffix, never a minor version alone.
func TestWholeVersion(t *testing.T) {
	for in, want := range map[string]string{"1.36.3": "v1.36.3", "v1.30.2+k3s1": "v1.30.2+k3s1", "v1.30.2-eks-a1b2": "v1.30.2-eks-a1b2", "": "", "v1.36": "error", "banana": "error"} {
		got, err := wholeVersion("--until", in)
		if err != nil {
			got = "error"
		}
		if got != want {
			t.Errorf("wholeVersion(%q) = %q (%v), want %q", in, got, err, want)
		}
	}
}
