package peerproxy

import (
	"net/url"
	"testing"
)

// FuzzPeerURL: a lease's URL, which anyone who may write leases chooses, is accepted only
// as https://<host>[:<port>] (TestPeerURL): nothing else of it reaches a dial, what is
// dialled is the host the lease names, and an accepted URL is accepted again unchanged.
func FuzzPeerURL(f *testing.F) {
	for _, raw := range []string{
		"https://10.0.0.1:6443", "https://10.0.0.1:6443/", "https://[fd00::1]:6443", "https://apiserver.example", "",
		"http://10.0.0.1:6443", "10.0.0.1:6443", "https://", "https://:6443", "https://u:p@10.0.0.1:6443",
		"https://10.0.0.1:6443/proxy", "https://10.0.0.1:6443?x=1", "https://10.0.0.1:6443#x", "https://10.0.0.1:6443/%zz",
		"HTTPS://10.0.0.1:6443", "https://10.0.0.1:6443?", "https://10.0.0.1:6443#", "https://a%2eb:6443", "https://[fe80::1%25eth0]:6443",
		"https:10.0.0.1", "https:///10.0.0.1", "https://10.0.0.1:6443\\@evil", "https://127.77.1.31:6443",
	} {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got, err := peerURL(raw)
		if err != nil {
			if got != "" {
				t.Fatalf("peerURL(%q) refused with %v, yet returned %q", raw, err, got)
			}
			return
		}
		in, perr := url.Parse(raw)
		if perr != nil || in.User != nil || in.RawQuery != "" || in.Fragment != "" || (in.Path != "" && in.Path != "/") || in.Opaque != "" {
			t.Fatalf("peerURL(%q) = %q: accepted a URL with more than https://host[:port] (%+v, %v)", raw, got, in, perr)
		}
		out, perr := url.Parse(got)
		if perr != nil || out.Scheme != "https" || out.Host != in.Host || out.Hostname() == "" || out.Path != "" || out.User != nil {
			t.Fatalf("peerURL(%q) = %q, which dials %+v (%v), not the lease's host %q", raw, got, out, perr, in.Host)
		}
		if again, err := peerURL(got); again != got || err != nil {
			t.Fatalf("peerURL(%q) = %q, but peerURL(%q) = %q, %v", raw, got, got, again, err)
		}
	})
}
