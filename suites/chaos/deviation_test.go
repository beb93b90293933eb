package chaos

import (
	"testing"

	"github.com/skewcheck/skewcheck/framework"
	scenario "github.com/skewcheck/skewcheck/scenarios/chaos"
)

// droppedOnSync allows the entry's 404s for a registered peer, and a recovery that ran out
// still answering 404; not any other failure of the same test.
func TestDroppedOnSyncAllowsOnlyTheDroppedPeer(t *testing.T) {
	entry := &framework.Endpoint{Name: "apiserver-1", Version: "v1.36.3"}
	dropped := scenario.Outcome{Spurious404: 3, Statuses: map[int]int{200: 10, 503: 5, 404: 3}, AfterFirst503: map[int]int{503: 5, 404: 3}}
	cases := []struct {
		name     string
		o        scenario.Outcome
		recovery bool
		last     int
		want     bool
	}{
		{"404s while registered", dropped, false, 0, true},
		{"and still 404 when recovery ran out", dropped, true, 404, true},
		{"recovery ran out on 503", dropped, true, 503, false},
		{"recovery ran out without an answer", dropped, true, 0, false},
		{"no 404 at all", scenario.Outcome{Statuses: map[int]int{200: 10, 503: 5}, AfterFirst503: map[int]int{503: 5}}, false, 0, false},
		{"a 500 among the answers", scenario.Outcome{Spurious404: 3, Statuses: map[int]int{200: 10, 500: 1, 404: 3}, AfterFirst503: map[int]int{404: 3}}, false, 0, false},
		{"no answer among them", scenario.Outcome{Spurious404: 3, Statuses: map[int]int{0: 1, 404: 3, 503: 1}, AfterFirst503: map[int]int{404: 3}}, false, 0, false},
		{"a 200 after the first 503", scenario.Outcome{Spurious404: 3, Statuses: map[int]int{200: 11, 503: 5, 404: 3}, AfterFirst503: map[int]int{503: 5, 404: 3, 200: 1}}, false, 0, false},
	}
	for _, tc := range cases {
		tc.o.LastUnrecovered = tc.last
		if got := droppedOnSync.Allows(observed(entry, tc.o, tc.recovery)); got != tc.want {
			t.Errorf("%s: allowed %v, want %v", tc.name, got, tc.want)
		}
	}
	for status, want := range map[int]bool{404: true, 503: false, 500: false, 0: false} {
		if got := missedAfterStop.Allows(framework.Observation{At: entry, Status: status}); got != want {
			t.Errorf("missedAfterStop, last answer %d: allowed %v, want %v", status, got, want)
		}
	}
}
