package peerproxy

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// fuzzLeases reads one lease a line, "name|url|created|renewed|duration|known|failed":
// created, renewed and failed in seconds before now (failed -1: never), duration in
// seconds (-1: none), known 1 for a peer already verified. Lines that do not read so are
// skipped, as is a second lease of a name.
func fuzzLeases(spec string, now time.Time) (leases []coordinationv1.Lease, known map[string]view, failed failedReads) {
	known, failed = map[string]view{}, failedReads{}
	names := map[string]bool{}
	for _, line := range strings.Split(spec, "\n") {
		f := strings.Split(line, "|")
		if len(f) != 7 {
			continue
		}
		var n [5]int
		ok := true
		for i, s := range []string{f[2], f[3], f[4], f[5], f[6]} {
			v, err := strconv.Atoi(s)
			ok = ok && err == nil && v >= -1 && v < 1<<20
			n[i] = v
		}
		if !ok || names[f[0]] {
			continue // a List names each lease once
		}
		names[f[0]] = true
		l := coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: f[0], Annotations: map[string]string{LeaseURLAnnotation: f[1]},
			CreationTimestamp: metav1.NewTime(now.Add(-time.Duration(n[0]) * time.Second))}}
		renewed := metav1.NewMicroTime(now.Add(-time.Duration(n[1]) * time.Second))
		l.Spec.RenewTime = &renewed
		if n[2] >= 0 {
			d := int32(n[2])
			l.Spec.LeaseDurationSeconds = &d
		}
		if n[3] == 1 {
			known[f[0]] = view{id: f[0]}
		}
		if n[4] >= 0 {
			failed[f[0]] = now.Add(-time.Duration(n[4]) * time.Second)
		}
		leases = append(leases, l)
	}
	return leases, known, failed
}

// FuzzPickPeers: whatever leases anyone writes in kube-system, one sync reads
//   - never the proxy's own lease, only live ones, each at the URL peerURL makes of its
//     annotation, one lease per URL, at most maxPeers, and counts every live lease left
//     out, for a bad URL or over the cap (TestSync; hostilelease_test.go);
//   - the peers already verified first, and of the candidates those never tried before
//     those whose read failed, the least recently failed first, so a flood that never
//     verifies cannot keep a new peer out (unverified.go; hostilelease_test.go).
func FuzzPickPeers(f *testing.F) {
	f.Add("skewcheck-peerproxy-self|https://10.0.0.1:6443|60|1|15|0|-1\n" +
		"skewcheck-peerproxy-b|https://10.0.0.2:6443|60|1|15|1|-1\n" +
		"skewcheck-peerproxy-a|https://10.0.0.3:6443|30|1|15|0|-1\n" +
		"skewcheck-peerproxy-down|https://10.0.0.4:6443|20|1|15|0|5\n" +
		"skewcheck-peerproxy-expired|https://10.0.0.5:6443|90|60|15|0|-1\n" +
		"skewcheck-peerproxy-plain|http://10.0.0.6:6443|10|1|15|0|-1\n" +
		"skewcheck-peerproxy-dup|https://10.0.0.2:6443|5|1|15|0|-1\n" +
		"skewcheck-peerproxy-none|https://10.0.0.7:6443|5|1|-1|0|-1\n")
	var flood strings.Builder
	for i := range 40 {
		fmt.Fprintf(&flood, "hostile-%02d|https://192.0.2.%d:6443|%d|1|3600|0|%d\n", i, i, 100+i, i%3)
	}
	flood.WriteString("skewcheck-peerproxy-new|https://10.0.0.9:6443|1|1|3600|0|-1\n")
	f.Add(flood.String())
	f.Fuzz(func(t *testing.T, spec string) {
		now := time.Now()
		leases, known, failed := fuzzLeases(spec, now)
		r := &registry{id: "self", failed: failed}
		got := r.pickPeers(leases, known)

		// What each lease should count as, judged from the lease alone (a first sighting:
		// live while its renewTime is within its duration).
		goodURLs, bad := map[string]bool{}, 0
		leaseByName := map[string]coordinationv1.Lease{}
		for _, l := range leases {
			leaseByName[l.Name] = l
			d := l.Spec.LeaseDurationSeconds
			live := d != nil && *d > 0 && now.Sub(l.Spec.RenewTime.Time) < time.Duration(*d)*time.Second
			if l.Name == r.leaseName() || !live {
				continue
			}
			if u, err := peerURL(l.Annotations[LeaseURLAnnotation]); err == nil {
				goodURLs[u] = true
			} else {
				bad++
			}
		}
		if got.badURL != bad || len(got.leases)+got.overCap != len(goodURLs) || len(got.leases) > maxPeers {
			t.Fatalf("picked %d, %d over the cap, %d with a bad URL; want %d bad URLs and %d distinct good ones, at most %d picked",
				len(got.leases), got.overCap, got.badURL, bad, len(goodURLs), maxPeers)
		}
		seen := map[string]bool{}
		for i, p := range got.leases {
			l, ok := leaseByName[p.name]
			u, err := peerURL(l.Annotations[LeaseURLAnnotation])
			switch {
			case !ok || p.name == r.leaseName():
				t.Fatalf("picked %q: the proxy's own lease or none listed", p.name)
			case err != nil || u != p.url || !goodURLs[u]:
				t.Fatalf("picked %q at %q: its lease says %q (%v), live: %v", p.name, p.url, l.Annotations[LeaseURLAnnotation], err, goodURLs[u])
			case seen[p.url]:
				t.Fatalf("picked %s twice", p.url)
			}
			seen[p.url] = true
			if i == 0 {
				continue
			}
			prev := got.leases[i-1]
			_, prevKnown := known[prev.name]
			_, isKnown := known[p.name]
			switch {
			case isKnown && !prevKnown:
				t.Fatalf("the verified peer %q comes after the candidate %q", p.name, prev.name)
			case !isKnown && !prevKnown && !prev.failed.IsZero() && p.failed.IsZero():
				t.Fatalf("the untried candidate %q comes after %q, whose read failed", p.name, prev.name)
			case !isKnown && !prevKnown && p.failed.Before(prev.failed) && !p.failed.IsZero():
				t.Fatalf("%q, failed at %v, comes after %q, failed later at %v", p.name, p.failed, prev.name, prev.failed)
			}
		}
	})
}
