package local

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/pki"
)

// flagsFor builds the command line of one server of a hand-made cluster.
func flagsFor(t *testing.T, b *pki.Bundle, version string, spec clusters.ServerSpec) []string {
	t.Helper()
	dir := t.TempDir()
	c := &Cluster{Name: "t", PKI: b, etcdURL: "http://127.0.0.1:2379", auditPolicy: filepath.Join(dir, "audit-policy.yaml")}
	s := &Server{
		Name: "apiserver-1", IP: "127.77.0.11", Port: 6443, Dir: dir, Version: version, Spec: spec,
		Serving: pki.Pair{CertFile: filepath.Join(dir, "serving.crt"), KeyFile: filepath.Join(dir, "serving.key")},
		cluster: c,
	}
	return apiserverFlags(c, s)
}

func withPrefix(flags []string, prefix string) []string {
	var out []string
	for _, f := range flags {
		if strings.HasPrefix(f, prefix) {
			out = append(out, f)
		}
	}
	return out
}

func TestAPIServerFlags(t *testing.T) {
	b, err := pki.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	peerCA := "--peer-ca-file=" + b.CA.CertFile
	const (
		gateOn  = "--feature-gates=UnknownVersionInteroperabilityProxy=true"
		gateOff = "--feature-gates=UnknownVersionInteroperabilityProxy=false"
		rtcfg   = "--runtime-config=internal.apiserver.k8s.io/v1alpha1=true"
		uid     = "--requestheader-uid-headers=X-Remote-Uid"
	)
	cases := []struct {
		name    string
		version string
		spec    clusters.ServerSpec
		// featureGates is every --feature-gates flag we add (ExtraFlags not included).
		featureGates []string
		has, hasNot  []string
		// last are the final flags, in order.
		last []string
	}{
		{
			name: "1.35 proxy on", version: "v1.35.4",
			featureGates: []string{gateOn},
			has:          []string{peerCA, uid},
			hasNot:       []string{rtcfg, "--peer-advertise-ip=", "--peer-advertise-port="},
		},
		{
			name: "1.36 proxy on by default", version: "v1.36.3",
			has:    []string{peerCA, uid},
			hasNot: []string{"--feature-gates=", rtcfg},
		},
		{
			name: "1.36 proxy off", version: "v1.36.3", spec: clusters.ServerSpec{DisablePeerProxy: true},
			featureGates: []string{gateOff},
			has:          []string{uid},
			hasNot:       []string{"--peer-ca-file=", "--peer-advertise-ip=", "--peer-advertise-port="},
		},
		{
			name: "1.36 proxy off ignores PeerAdvertise", version: "v1.36.3",
			spec:         clusters.ServerSpec{DisablePeerProxy: true, PeerAdvertise: "127.0.0.9:7000"},
			featureGates: []string{gateOff},
			hasNot:       []string{"--peer-ca-file=", "--peer-advertise-ip=", "--peer-advertise-port="},
		},
		{
			// kubeadm's flags: the gate left at its default (on from 1.36), no peer CA.
			name: "1.36 as kubeadm leaves it", version: "v1.36.3", spec: clusters.ServerSpec{KubeadmPeerProxy: true},
			has:    []string{uid, "--proxy-client-cert-file=", "--requestheader-allowed-names=front-proxy-client"},
			hasNot: []string{"--feature-gates=", "--peer-ca-file="},
		},
		{
			name: "1.35 as kubeadm leaves it: the alpha gate off", version: "v1.35.4", spec: clusters.ServerSpec{KubeadmPeerProxy: true},
			hasNot: []string{"--feature-gates=", "--peer-ca-file="},
		},
		{
			name: "1.36 emulating 1.35 as kubeadm leaves it: the gate of 1.35", version: "v1.36.3",
			spec:   clusters.ServerSpec{KubeadmPeerProxy: true, EmulatedVersion: "1.35"},
			hasNot: []string{"--feature-gates=", "--peer-ca-file="},
		},
		{
			name: "1.35 proxy off: alpha gate is already off", version: "v1.35.4", spec: clusters.ServerSpec{DisablePeerProxy: true},
			hasNot: []string{"--feature-gates=", "--peer-ca-file=", rtcfg},
		},
		{
			name: "1.32 proxy on needs StorageVersionAPI", version: "v1.32.9",
			featureGates: []string{"--feature-gates=UnknownVersionInteroperabilityProxy=true,StorageVersionAPI=true,RemoteRequestHeaderUID=true"},
			has:          []string{peerCA, uid, rtcfg},
		},
		{
			name: "1.32 proxy off", version: "v1.32.9", spec: clusters.ServerSpec{DisablePeerProxy: true},
			featureGates: []string{"--feature-gates=RemoteRequestHeaderUID=true"},
			has:          []string{uid},
			hasNot:       []string{rtcfg, "--peer-ca-file="},
		},
		{
			name: "1.31 has no uid headers", version: "v1.31.12",
			featureGates: []string{"--feature-gates=UnknownVersionInteroperabilityProxy=true,StorageVersionAPI=true"},
			has:          []string{peerCA, rtcfg},
			hasNot:       []string{"--requestheader-uid-headers="},
		},
		{
			// The gate arrived in 1.28: a 1.27 server told of it would not start.
			name: "1.27 has no proxy to switch on", version: "v1.27.16",
			has:    []string{"--runtime-config=authentication.k8s.io/v1beta1=true"},
			hasNot: []string{"--feature-gates=", "--peer-ca-file=", rtcfg, "--requestheader-uid-headers="},
		},
		{
			name: "1.28 proxy on needs StorageVersionAPI", version: "v1.28.15",
			featureGates: []string{"--feature-gates=UnknownVersionInteroperabilityProxy=true,StorageVersionAPI=true"},
			has:          []string{peerCA, rtcfg},
		},
		{
			name: "1.33 needs no StorageVersionAPI", version: "v1.33.5",
			featureGates: []string{gateOn},
			has:          []string{peerCA, uid},
			hasNot:       []string{rtcfg},
		},
		{
			name: "peer advertise", version: "v1.36.3", spec: clusters.ServerSpec{PeerAdvertise: "127.0.0.9:7000"},
			has: []string{peerCA, "--peer-advertise-ip=127.0.0.9", "--peer-advertise-port=7000", "--advertise-address=127.77.0.11"},
		},
		{
			// 1.35 and 1.36 ignore --peer-advertise-*: peers dial the advertise address.
			name: "peer advertise on the server's port is the advertise address", version: "v1.36.3", spec: clusters.ServerSpec{PeerAdvertise: "127.0.0.9:6443"},
			has: []string{peerCA, "--peer-advertise-ip=127.0.0.9", "--advertise-address=127.0.0.9"},
		},
		{
			name: "peer advertise IPv6", version: "v1.36.3", spec: clusters.ServerSpec{PeerAdvertise: "[::1]:7000"},
			has: []string{peerCA, "--peer-advertise-ip=::1", "--peer-advertise-port=7000"},
		},
		{
			name: "extra flags last", version: "v1.35.4",
			spec:         clusters.ServerSpec{ExtraFlags: []string{"--runtime-config=batch/v1=false", "--v=4"}},
			featureGates: []string{gateOn},
			has:          []string{peerCA},
			last:         []string{"--runtime-config=batch/v1=false", "--v=4"},
		},
		{
			name: "extra gate off wins without DisablePeerProxy on 1.36", version: "v1.36.3",
			spec:         clusters.ServerSpec{ExtraFlags: []string{"--feature-gates=Foo=true,UnknownVersionInteroperabilityProxy=false"}},
			featureGates: []string{gateOff},
			hasNot:       []string{"--peer-ca-file=", "--peer-advertise-ip="},
			last:         []string{"--feature-gates=Foo=true,UnknownVersionInteroperabilityProxy=false"},
		},
		{
			name: "extra gate off on 1.35", version: "v1.35.4",
			spec:   clusters.ServerSpec{ExtraFlags: []string{"--feature-gates=Foo=true,UnknownVersionInteroperabilityProxy=false"}},
			hasNot: []string{"--peer-ca-file=", gateOn},
			last:   []string{"--feature-gates=Foo=true,UnknownVersionInteroperabilityProxy=false"},
		},
		{
			// The gate stays on (the server writes its endpoint lease for its peers), and the
			// empty peer CA, last, is what kube-apiserver keeps: no proxy of its own.
			name: "extra empty peer CA keeps the gate on", version: "v1.35.4",
			spec:         clusters.ServerSpec{ExtraFlags: []string{"--peer-ca-file="}},
			featureGates: []string{gateOn},
			has:          []string{peerCA},
			last:         []string{"--peer-ca-file="},
		},
		{
			// At 1.35 the gate is alpha and off, whatever the binary: it must be switched on.
			name: "1.36 emulating 1.35 switches the gate on", version: "v1.36.3", spec: clusters.ServerSpec{EmulatedVersion: "1.35"},
			featureGates: []string{gateOn},
			has:          []string{peerCA, uid, "--emulated-version=1.35"},
			hasNot:       []string{rtcfg},
		},
		{
			name: "1.36 emulating v1.35 without the proxy needs no gate flag", version: "v1.36.3",
			spec:   clusters.ServerSpec{EmulatedVersion: "v1.35", DisablePeerProxy: true},
			has:    []string{"--emulated-version=1.35"},
			hasNot: []string{"--feature-gates=", "--peer-ca-file="},
		},
		{
			// The binary decides what exists (no StorageVersionAPI: 1.35's proxy goes by
			// discovery); the emulated 1.32 decides the UID header gate's default (alpha, off).
			name: "1.35 emulating 1.32", version: "v1.35.4", spec: clusters.ServerSpec{EmulatedVersion: "1.32"},
			featureGates: []string{"--feature-gates=UnknownVersionInteroperabilityProxy=true,RemoteRequestHeaderUID=true"},
			has:          []string{peerCA, uid, "--emulated-version=1.32"},
			hasNot:       []string{rtcfg},
		},
		{
			name: "extra gate on wins over DisablePeerProxy", version: "v1.35.4",
			spec:         clusters.ServerSpec{DisablePeerProxy: true, ExtraFlags: []string{"--feature-gates=UnknownVersionInteroperabilityProxy=true"}},
			featureGates: []string{gateOn},
			has:          []string{peerCA},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := flagsFor(t, b, tc.version, tc.spec)
			ours := f[:len(f)-len(tc.spec.ExtraFlags)]
			if got := f[len(ours):]; len(tc.spec.ExtraFlags) > 0 && !reflect.DeepEqual(got, tc.spec.ExtraFlags) {
				t.Errorf("command line does not end with the extra flags %v:\n%s", tc.spec.ExtraFlags, strings.Join(f, "\n"))
			}
			if tc.last != nil && !reflect.DeepEqual(f[len(f)-len(tc.last):], tc.last) {
				t.Errorf("last flags = %v, want %v", f[len(f)-len(tc.last):], tc.last)
			}
			if got := withPrefix(ours, "--feature-gates="); !reflect.DeepEqual(got, tc.featureGates) {
				t.Errorf("--feature-gates = %v, want %v", got, tc.featureGates)
			}
			for _, w := range tc.has {
				if len(withPrefix(ours, w)) != 1 {
					t.Errorf("want exactly one %s in:\n%s", w, strings.Join(f, "\n"))
				}
			}
			for _, w := range tc.hasNot {
				if got := withPrefix(f, w); len(got) > 0 {
					t.Errorf("want no %s, have %v", w, got)
				}
			}
			if tc.spec.PeerAdvertise == "" && len(withPrefix(f, "--advertise-address=127.77.0.11")) == 0 {
				t.Errorf("without a peer path the advertise address is the server's own: %v", withPrefix(f, "--advertise-address="))
			}
			// The basics are always there and point at this server and cluster.
			for _, w := range []string{
				"--advertise-address=", "--bind-address=127.77.0.11", "--secure-port=6443",
				"--etcd-servers=http://127.0.0.1:2379",
				"--client-ca-file=" + b.CA.CertFile,
				"--requestheader-client-ca-file=" + b.FrontProxyCA.CertFile,
				"--proxy-client-cert-file=" + b.FrontProxyClient.CertFile,
				"--audit-log-path=",
			} {
				if len(withPrefix(f, w)) == 0 {
					t.Errorf("missing %s", w)
				}
			}
		})
	}
}

func TestPeerProxyEnabled(t *testing.T) {
	cases := []struct {
		name string
		spec clusters.ServerSpec
		want bool
	}{
		{"default", clusters.ServerSpec{}, true},
		{"disabled", clusters.ServerSpec{DisablePeerProxy: true}, false},
		{"extra off", clusters.ServerSpec{ExtraFlags: []string{"--feature-gates=Foo=true,UnknownVersionInteroperabilityProxy=false"}}, false},
		{"extra off with spaces", clusters.ServerSpec{ExtraFlags: []string{"--feature-gates=Foo=true, UnknownVersionInteroperabilityProxy = false"}}, false},
		{"extra on over disabled", clusters.ServerSpec{DisablePeerProxy: true, ExtraFlags: []string{"--feature-gates=UnknownVersionInteroperabilityProxy=True"}}, true},
		{"last gate flag wins", clusters.ServerSpec{ExtraFlags: []string{
			"--feature-gates=UnknownVersionInteroperabilityProxy=false",
			"--feature-gates=UnknownVersionInteroperabilityProxy=true",
		}}, true},
		{"other gates only", clusters.ServerSpec{DisablePeerProxy: true, ExtraFlags: []string{"--feature-gates=Foo=true"}}, false},
		{"similar gate name", clusters.ServerSpec{ExtraFlags: []string{"--feature-gates=UnknownVersionInteroperabilityProxyX=false"}}, true},
		{"not a feature-gates flag", clusters.ServerSpec{ExtraFlags: []string{"--runtime-config=UnknownVersionInteroperabilityProxy=false"}}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := peerProxyEnabled("v1.36.3", tc.spec); got != tc.want {
				t.Errorf("peerProxyEnabled(v1.36.3, %+v) = %v, want %v", tc.spec, got, tc.want)
			}
			if got := (&Server{Version: "v1.36.3", Spec: tc.spec}).PeerProxy(); got != tc.want {
				t.Errorf("Server.PeerProxy() = %v, want %v", got, tc.want)
			}
			// Before 1.28 there is no gate to switch on, whatever the spec asks.
			if got := peerProxyEnabled("v1.27.16", tc.spec); got {
				t.Errorf("peerProxyEnabled(v1.27.16, %+v) = true, want false", tc.spec)
			}
		})
	}
}

func TestMinorAndGateDefault(t *testing.T) {
	cases := []struct {
		version string
		minor   int
		gateOn  bool
	}{
		{"v1.31.12", 31, false},
		{"v1.35.4", 35, false},
		{"v1.36.0", 36, true},
		{"v1.36.3", 36, true},
		{"v1.37.0-alpha.1", 37, true},
		{"v1.100.0", 100, true},
	}
	for _, tc := range cases {
		if got := minor(tc.version); got != tc.minor {
			t.Errorf("minor(%q) = %d, want %d", tc.version, got, tc.minor)
		}
		if got := gateDefault(tc.version); got != tc.gateOn {
			t.Errorf("gateDefault(%q) = %v, want %v", tc.version, got, tc.gateOn)
		}
	}
}

// TestPeerProxyNeedsAPeerCA: a server proxies only with its gate on and a peer CA, as
// upstream builds its proxy only when --peer-ca-file is set; the last --peer-ca-file of the
// extra flags decides, as it does on kube-apiserver's command line.
func TestPeerProxyNeedsAPeerCA(t *testing.T) {
	for _, tc := range []struct {
		version string
		spec    clusters.ServerSpec
		gate    bool
		proxies bool
	}{
		{"v1.36.3", clusters.ServerSpec{}, true, true},
		{"v1.36.3", clusters.ServerSpec{ExtraFlags: []string{"--peer-ca-file="}}, true, false},
		{"v1.35.4", clusters.ServerSpec{ExtraFlags: []string{"--peer-ca-file= "}}, true, false},
		{"v1.36.3", clusters.ServerSpec{ExtraFlags: []string{"--peer-ca-file=", "--peer-ca-file=/etc/ca.crt"}}, true, true},
		{"v1.36.3", clusters.ServerSpec{DisablePeerProxy: true}, false, false},
		{"v1.27.16", clusters.ServerSpec{}, false, false},
		{"v1.36.3", clusters.ServerSpec{KubeadmPeerProxy: true}, true, false},
		{"v1.35.4", clusters.ServerSpec{KubeadmPeerProxy: true}, false, false},
		{"v1.36.3", clusters.ServerSpec{KubeadmPeerProxy: true, EmulatedVersion: "1.35"}, false, false},
		{"v1.36.3", clusters.ServerSpec{KubeadmPeerProxy: true, DisablePeerProxy: true}, false, false},
	} {
		if got := gateEnabled(tc.version, tc.spec); got != tc.gate {
			t.Errorf("%s %v: gate on = %v, want %v", tc.version, tc.spec.ExtraFlags, got, tc.gate)
		}
		if got := peerProxyEnabled(tc.version, tc.spec); got != tc.proxies {
			t.Errorf("%s %v: proxies = %v, want %v", tc.version, tc.spec.ExtraFlags, got, tc.proxies)
		}
	}
}

func TestCheckEmulation(t *testing.T) {
	for _, tc := range []struct {
		binary, emulated string
		ok               bool
		why              string
	}{
		{"v1.36.3", "1.35", true, ""},
		{"v1.36.3", "1.33", true, ""},
		{"v1.36.3", "1.36", true, ""},
		{"v1.36.3", "v1.34", true, ""},
		{"v1.36.3", "1.32", false, "emulates 1.33 to 1.36"},
		{"v1.36.3", "1.37", false, "emulates 1.33 to 1.36"},
		{"v1.33.5", "1.30", false, "emulates 1.31 to 1.33 (three minor releases back, never before 1.31)"},
		{"v1.36.3", "2.35", false, "cannot emulate 2.35"},
		{"v1.36.3", "1.35.4", false, "refuses a patch release"},
		{"v1.36.3", "kube=1.35", false, "want a minor version"},
	} {
		err := CheckEmulation(tc.binary, tc.emulated)
		if tc.ok != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.why)) {
			t.Errorf("CheckEmulation(%s, %s) = %v, want ok=%v and %q", tc.binary, tc.emulated, err, tc.ok, tc.why)
		}
	}
}
