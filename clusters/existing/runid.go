package existing

import (
	"crypto/rand"
	"time"
)

// base36 are the characters of a run ID's random part: lowercase, so an ID is a label
// value and, after "skewcheck-", a namespace's name (a DNS label).
const base36 = "0123456789abcdefghijklmnopqrstuvwxyz"

// RunID names a run: the UTC time it starts, readable in `kubectl get ns`, and five random
// characters, so that two runs started in the same second (two CI jobs on one cluster)
// never share a name, a namespace or a label: 36^5 is some 60 million.
func RunID(now time.Time) string {
	suffix := make([]byte, 0, 5)
	var b [1]byte
	for len(suffix) < cap(suffix) {
		rand.Read(b[:])
		if b[0] < 252 { // 7*36: above it, the first characters would come up more often
			suffix = append(suffix, base36[b[0]%36])
		}
	}
	return now.UTC().Format("20060102-150405") + "-" + string(suffix)
}
