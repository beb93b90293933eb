package app

import (
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/skewcheck/skewcheck/clusters"
)

func TestServerFlagsSpecs(t *testing.T) {
	two := []string{"v1.35.4", "v1.36.3"}
	cases := []struct {
		name    string
		flags   serverFlags
		want    []clusters.ServerSpec
		wantErr []string // substrings of the error
	}{
		{
			name:  "versions only",
			flags: serverFlags{versions: []string{"v1.35.4", " 1.36 ", "latest"}},
			want:  []clusters.ServerSpec{{Version: "v1.35.4"}, {Version: "1.36"}, {Version: "latest"}},
		},
		{
			name:  "no versions",
			flags: serverFlags{},
			want:  []clusters.ServerSpec{},
		},
		{
			name:  "no-peer-proxy by number",
			flags: serverFlags{versions: two, noPeerProxy: []string{"2"}},
			want:  []clusters.ServerSpec{{Version: "v1.35.4"}, {Version: "v1.36.3", DisablePeerProxy: true}},
		},
		{
			name:  "no-peer-proxy by name",
			flags: serverFlags{versions: two, noPeerProxy: []string{"apiserver-2"}},
			want:  []clusters.ServerSpec{{Version: "v1.35.4"}, {Version: "v1.36.3", DisablePeerProxy: true}},
		},
		{
			name:  "no-peer-proxy both",
			flags: serverFlags{versions: two, noPeerProxy: []string{"1", "apiserver-2"}},
			want:  []clusters.ServerSpec{{Version: "v1.35.4", DisablePeerProxy: true}, {Version: "v1.36.3", DisablePeerProxy: true}},
		},
		{
			name:  "kubeadm-peer-proxy",
			flags: serverFlags{versions: two, kubeadmProxy: []string{"1", "apiserver-2"}},
			want:  []clusters.ServerSpec{{Version: "v1.35.4", KubeadmPeerProxy: true}, {Version: "v1.36.3", KubeadmPeerProxy: true}},
		},
		{
			name:    "kubeadm-peer-proxy and no-peer-proxy",
			flags:   serverFlags{versions: two, noPeerProxy: []string{"2"}, kubeadmProxy: []string{"2"}},
			wantErr: []string{"not both"},
		},
		{
			name:    "no-peer-proxy 0",
			flags:   serverFlags{versions: two, noPeerProxy: []string{"0"}},
			wantErr: []string{`"0" names no server`, "apiserver-1 to apiserver-2", "1 to 2"},
		},
		{
			name:    "no-peer-proxy 3 of 2",
			flags:   serverFlags{versions: two, noPeerProxy: []string{"3"}},
			wantErr: []string{`"3" names no server`, "apiserver-1 to apiserver-2", "1 to 2"},
		},
		{
			name:    "no-peer-proxy apiserver-3 of 2",
			flags:   serverFlags{versions: two, noPeerProxy: []string{"apiserver-3"}},
			wantErr: []string{`"apiserver-3" names no server`, "apiserver-1 to apiserver-2"},
		},
		{
			name:    "no-peer-proxy x",
			flags:   serverFlags{versions: two, noPeerProxy: []string{"x"}},
			wantErr: []string{`"x" names no server`, "apiserver-1 to apiserver-2", "1 to 2"},
		},
		{
			name:    "no-peer-proxy negative",
			flags:   serverFlags{versions: two, noPeerProxy: []string{"-1"}},
			wantErr: []string{`"-1" names no server`},
		},
		{
			name:  "emulated version becomes the spec's",
			flags: serverFlags{versions: []string{"v1.36.3", "v1.36.3"}, extra: []string{"1=--emulated-version=1.35", "2=--emulated-version=kube=1.34"}},
			want:  []clusters.ServerSpec{{Version: "v1.36.3", EmulatedVersion: "1.35"}, {Version: "v1.36.3", EmulatedVersion: "1.34"}},
		},
		{
			name:    "emulated version of another component",
			flags:   serverFlags{versions: two, extra: []string{"1=--emulated-version=wardle=1.2"}},
			wantErr: []string{"kube component only"},
		},
		{
			name:    "emulated versions of several components",
			flags:   serverFlags{versions: two, extra: []string{"1=--emulated-version=1.35,wardle=1.2"}},
			wantErr: []string{"one minor version"},
		},
		{
			name:  "server-flag on server 2 only",
			flags: serverFlags{versions: two, extra: []string{"2=--runtime-config=batch/v1=false"}},
			want:  []clusters.ServerSpec{{Version: "v1.35.4"}, {Version: "v1.36.3", ExtraFlags: []string{"--runtime-config=batch/v1=false"}}},
		},
		{
			name: "server-flag repeated keeps order",
			flags: serverFlags{versions: two, extra: []string{
				"apiserver-1=--v=4", "2=--runtime-config=batch/v1=false", "1=--feature-gates=Foo=true",
			}},
			want: []clusters.ServerSpec{
				{Version: "v1.35.4", ExtraFlags: []string{"--v=4", "--feature-gates=Foo=true"}},
				{Version: "v1.36.3", ExtraFlags: []string{"--runtime-config=batch/v1=false"}},
			},
		},
		{
			name:    "server-flag without --",
			flags:   serverFlags{versions: two, extra: []string{"2=runtime"}},
			wantErr: []string{`"2=runtime"`, "SERVER=--flag=value"},
		},
		{
			name:    "server-flag without =",
			flags:   serverFlags{versions: two, extra: []string{"--runtime-config"}},
			wantErr: []string{`"--runtime-config"`, "SERVER=--flag=value"},
		},
		{
			name:    "server-flag bad server",
			flags:   serverFlags{versions: two, extra: []string{"5=--v=4"}},
			wantErr: []string{`"5" names no server`},
		},
		{
			name:  "peer-advertise",
			flags: serverFlags{versions: two, port: 6443, peerAdvertise: []string{"1=127.0.0.9:6443"}},
			want:  []clusters.ServerSpec{{Version: "v1.35.4", PeerAdvertise: "127.0.0.9:6443"}, {Version: "v1.36.3"}},
		},
		{
			name:    "peer-advertise without port",
			flags:   serverFlags{versions: two, port: 6443, peerAdvertise: []string{"1=127.0.0.9"}},
			wantErr: []string{`"1=127.0.0.9"`, "SERVER=IP:PORT"},
		},
		{
			name:  "peer-advertise IPv6",
			flags: serverFlags{versions: two, port: 6443, peerAdvertise: []string{"1=[::1]:6443"}},
			want:  []clusters.ServerSpec{{Version: "v1.35.4", PeerAdvertise: "[::1]:6443"}, {Version: "v1.36.3"}},
		},
		{
			name:    "peer-advertise not an IP",
			flags:   serverFlags{versions: two, port: 6443, peerAdvertise: []string{"1=host:6443"}},
			wantErr: []string{"is not an IP address"},
		},
		{
			name:    "peer-advertise empty IP",
			flags:   serverFlags{versions: two, port: 6443, peerAdvertise: []string{"1=:6443"}},
			wantErr: []string{"is not an IP address"},
		},
		{
			name:    "peer-advertise on another port than the servers'",
			flags:   serverFlags{versions: two, port: 6443, peerAdvertise: []string{"1=127.0.0.9:7000"}},
			wantErr: []string{"the port must be the servers' --port (6443)", "ignore --peer-advertise-port"},
		},
		{
			name:    "peer-advertise bad port",
			flags:   serverFlags{versions: two, port: 6443, peerAdvertise: []string{"1=127.0.0.9:abc"}},
			wantErr: []string{"is not a port"},
		},
		{
			name:    "peer-advertise without server",
			flags:   serverFlags{versions: two, port: 6443, peerAdvertise: []string{"127.0.0.9:6443"}},
			wantErr: []string{`"127.0.0.9:6443"`, "SERVER=IP:PORT"},
		},
		{
			name:    "peer-advertise bad server",
			flags:   serverFlags{versions: two, port: 6443, peerAdvertise: []string{"apiserver-9=127.0.0.9:6443"}},
			wantErr: []string{`"apiserver-9" names no server`},
		},
		{
			name: "everything at once",
			flags: serverFlags{
				versions: two, port: 6443,
				noPeerProxy:   []string{"apiserver-1"},
				extra:         []string{"2=--runtime-config=batch/v1=false"},
				peerAdvertise: []string{"apiserver-2=127.0.0.9:6443"},
			},
			want: []clusters.ServerSpec{
				{Version: "v1.35.4", DisablePeerProxy: true},
				{Version: "v1.36.3", ExtraFlags: []string{"--runtime-config=batch/v1=false"}, PeerAdvertise: "127.0.0.9:6443"},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.flags.specs()
			if tc.wantErr != nil {
				if err == nil {
					t.Fatalf("specs() = %+v, want an error", got)
				}
				for _, w := range tc.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not mention %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("specs() =\n%+v\nwant\n%+v", got, tc.want)
			}
		})
	}
}

// The flags parse from a command line into the same specs.
func TestServerFlagsFromCommandLine(t *testing.T) {
	var f serverFlags
	cmd := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return nil }}
	f.add(cmd)
	err := cmd.ParseFlags([]string{
		"--versions", "v1.35.4,v1.36.3",
		"--no-peer-proxy", "1",
		"--server-flag", "2=--runtime-config=batch/v1=false,apps/v1=true",
		"--peer-advertise", "2=127.0.0.9:6443",
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.specs()
	if err != nil {
		t.Fatal(err)
	}
	want := []clusters.ServerSpec{
		{Version: "v1.35.4", DisablePeerProxy: true},
		// --server-flag is a string array: a comma inside the flag is kept.
		{Version: "v1.36.3", ExtraFlags: []string{"--runtime-config=batch/v1=false,apps/v1=true"}, PeerAdvertise: "127.0.0.9:6443"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("specs() =\n%+v\nwant\n%+v", got, want)
	}
	if f.port != 6443 {
		t.Errorf("default port = %d", f.port)
	}

	var d serverFlags
	dc := &cobra.Command{Use: "y"}
	d.add(dc)
	if err := dc.ParseFlags(nil); err != nil {
		t.Fatal(err)
	}
	got, err = d.specs()
	if err != nil {
		t.Fatal(err)
	}
	if want := []clusters.ServerSpec{{Version: "v1.36.3"}, {Version: "v1.37.2"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("default specs = %+v, want %+v", got, want)
	}
}
