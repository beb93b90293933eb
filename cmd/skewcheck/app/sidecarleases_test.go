package app

import (
	"io"
	"strings"
	"testing"
)

// Lease flags need a sidecar and a whole declaration; a whole one reaches the sidecar.
func TestSidecarLeaseFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string // in the error; "" for none
	}{
		{"none", nil, ""},
		{"without a sidecar", []string{"--sidecar-lease-name", "acme-$SKEWCHECK_ID"}, "give --sidecar-command or --sidecar-image"},
		{"no labels", []string{"--sidecar-command", "true", "--sidecar-lease-name", "acme-$SKEWCHECK_ID", "--sidecar-lease-url-annotation", "acme.io/url"}, "labels map[], annotation \"acme.io/url\": give all of --sidecar-lease-name, --sidecar-lease-labels"},
		{"whole", []string{"--sidecar-command", "true", "--sidecar-lease-name", "acme-$SKEWCHECK_ID", "--sidecar-lease-labels", "acme.io/peer=true", "--sidecar-lease-url-annotation", "acme.io/url"}, ""},
	} {
		f := &conformanceFlags{}
		cmd := conformanceCommandWith(IOStreams{Out: io.Discard, ErrOut: io.Discard}, f)
		if err := cmd.ParseFlags(tc.args); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		err := f.applySidecarLeases()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		case tc.name == "whole" && (f.sidecar.Leases == nil || f.sidecar.Leases.Namespace != "kube-system" || f.sidecar.Leases.Labels["acme.io/peer"] != "true"):
			t.Errorf("%s: the sidecar got %+v", tc.name, f.sidecar.Leases)
		}
	}
}
