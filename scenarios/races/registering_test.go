package races

import (
	"strings"
	"testing"
	"time"
)

// points are answers one tenth of a second apart, from t=0.1.
func points(statuses ...int) []Point {
	out := make([]Point, len(statuses))
	for i, s := range statuses {
		t := float64(i+1) / 10
		out[i] = Point{T: t, Sent: t - 0.05, Status: s}
	}
	return out
}

// A registration is judged over its whole window: 404 while the peer has no lease, 404 or
// 503 until the first 200, and 200 alone after it.
func TestJudgeRegistering(t *testing.T) {
	cases := []struct {
		name     string
		points   []Point
		absent   float64 // the peer was without a lease until then
		first    float64 // the first 200
		want     string  // a word of the violation, "" for none
		spurious int
	}{
		{"as documented", points(404, 404, 503, 404, 200, 200, 200), 0.2, 0.5, "", 0},
		{"a lease never seen missing", points(503, 404, 200, 200), -1, 0.3, "", 0},
		{"503 before the peer had a lease", points(503, 404, 404, 200), 0.3, 0.4, "other than 404 while the peer had no identity lease", 0},
		{"404 after the first 200", points(404, 200, 404, 200), 0.1, 0.2, "other than 200 after the first 200", 1},
		{"503 after the first 200", points(404, 200, 503, 200), 0.1, 0.2, "other than 200 after the first 200", 0},
		{"a 500", points(404, 500, 200), 0.1, 0.3, "unexpected status 500", 0},
		{"no 200 at all", points(404, 404, 503), 0.1, -1, "", 0},
	}
	for _, tc := range cases {
		v, spurious := judgeRegistering(tc.points, tc.absent, tc.first)
		got := strings.Join(v, "; ")
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) || spurious != tc.spurious {
			t.Errorf("%s: violations %q, spurious %d; want %q, %d", tc.name, got, spurious, tc.want, tc.spurious)
		}
	}
}

// A race that never answered 200 again says what clients were still told, the value the
// mutation matrix's claims observe (a peer not taken back: 404).
func TestNoRecoveryNamesTheLastAnswer(t *testing.T) {
	for _, tc := range []struct {
		points []Point
		want   string
	}{
		{points(200, 503, 404, 404), "no 200 within 1m30s of the peer starting (the last answer: 404)"},
		{points(200, 503), "no 200 within 1m30s of the peer starting (the last answer: 503)"},
		{nil, "no 200 within 1m30s of the peer starting (the last answer: 0)"},
	} {
		if got := noRecovery("the peer starting", 90*time.Second, tc.points); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.points, got, tc.want)
		}
	}
}
