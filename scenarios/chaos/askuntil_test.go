package chaos

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/skewcheck/skewcheck/framework"
)

// fakeProbe is a probe as framework.Endpoint.Do is one: it ends when its context does, or
// at its own bound (probe's 90 s, scaled down), and otherwise answers after takes. It
// answers the statuses of answers in turn, the last repeated; 0 is no answer: it hangs
// until its context or its own bound ends it. It notes when each ask began and the
// deadline it was given.
type fakeProbe struct {
	answers   []int
	takes     time.Duration
	own       time.Duration
	mu        sync.Mutex
	began     []time.Time
	deadlines []time.Time // zero: the ask had no deadline
}

func (f *fakeProbe) ask(ctx context.Context) framework.Response {
	f.mu.Lock()
	status := f.answers[min(len(f.began), len(f.answers)-1)]
	d, _ := ctx.Deadline()
	f.began, f.deadlines = append(f.began, time.Now()), append(f.deadlines, d)
	f.mu.Unlock()
	wait := f.takes
	if status == 0 || wait > f.own {
		wait = f.own
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return framework.Response{Err: "Get /api: " + ctx.Err().Error()}
	case <-t.C:
	}
	if status == 0 {
		return framework.Response{Err: "Get /api: context deadline exceeded (the probe's own bound)"}
	}
	return framework.Response{Status: status}
}

// The loops that ask again until a bound (a write read back, the recovery after healing)
// end within it whatever the probe does: one that hangs to its own bound (3 s here, 90 s
// in a run), or one that answers 503 slowly, so that a pause ends just past the bound.
// No ask starts after the bound, and each runs under a deadline no later than it: before,
// the last ask could start (readBack) or run (both) past it by up to a probe's own bound.
func TestAskingEndsWithinItsBound(t *testing.T) {
	// The slack is for a loaded machine; an overrun is the probe's own 3 s, or, for an ask
	// started after a pause past the bound, the pause's 150 ms past it.
	const bound, own, slack, late = 300 * time.Millisecond, 3 * time.Second, time.Second, 50 * time.Millisecond
	loops := []struct {
		name string
		run  func(a ask)
	}{
		{"readBack", func(a ask) { readBack(context.Background(), a, bound) }},
		{"awaitRecovery", func(a ask) { awaitRecovery(context.Background(), a, time.Now(), bound) }},
	}
	probes := []struct {
		name  string
		probe func() *fakeProbe
	}{
		{"a probe that hangs", func() *fakeProbe { return &fakeProbe{answers: []int{0}, own: own} }},
		{"a probe that answers 503 slowly", func() *fakeProbe { return &fakeProbe{answers: []int{503}, takes: 250 * time.Millisecond, own: own} }},
		{"a probe that answers 503 and then hangs", func() *fakeProbe {
			return &fakeProbe{answers: []int{503, 0}, takes: 10 * time.Millisecond, own: own}
		}},
	}
	for _, l := range loops {
		for _, p := range probes {
			t.Run(l.name+"/"+p.name, func(t *testing.T) {
				t.Parallel() // each takes the bound, mostly asleep
				f := p.probe()
				start := time.Now()
				l.run(f.ask)
				took := time.Since(start)
				if took > bound+slack {
					t.Errorf("took %v, want at most its bound %v (+%v for a loaded machine)", took, bound, slack)
				}
				for i, began := range f.began {
					if began.After(start.Add(bound + late)) {
						t.Errorf("ask %d of %d began %v after the loop did, past its bound %v", i+1, len(f.began), began.Sub(start), bound)
					}
					if d := f.deadlines[i]; d.IsZero() {
						t.Errorf("ask %d of %d ran under no deadline, not under the loop's, %v after it began", i+1, len(f.began), bound)
					} else if d.After(start.Add(bound + late)) {
						t.Errorf("ask %d of %d ran under a deadline %v after the loop began, past its bound %v", i+1, len(f.began), d.Sub(start), bound)
					}
				}
			})
		}
	}
}

// Bounding the asks changes nothing of what the loops conclude: readBack says an object is
// there on a 200, lost on a 404, and lost when neither came within the bound; recovery is
// the first 200 within the bound, and when none came, the last answer is what the server
// last said (a 404 still, which suites/chaos's droppedOnSync allows), not the ask the
// bound cut, unless there is no other.
func TestAskingKeepsWhatItAsserts(t *testing.T) {
	// Each case that does not settle takes the whole bound, so the cases run side by side.
	const bound, own = time.Second, 3 * time.Second
	for _, c := range []struct {
		answers []int
		want    bool
	}{
		{[]int{200}, true},
		{[]int{404}, false},
		{[]int{503, 0, 200}, true},
		{[]int{503, 503, 404}, false},
		{[]int{503}, false},
		{[]int{0}, false},
	} {
		t.Run(fmt.Sprintf("readBack/%v", c.answers), func(t *testing.T) {
			t.Parallel()
			f := &fakeProbe{answers: c.answers, takes: 10 * time.Millisecond, own: 50 * time.Millisecond}
			if got := readBack(context.Background(), f.ask, bound); got != c.want {
				t.Errorf("readBack with answers %v = %v, want %v", c.answers, got, c.want)
			}
		})
	}
	for _, c := range []struct {
		answers   []int
		recovered bool
		last      int
	}{
		{[]int{200}, true, 200},
		{[]int{503, 503, 200}, true, 200},
		{[]int{404}, false, 404},
		{[]int{404, 0}, false, 404},
		{[]int{0}, false, 0},
	} {
		t.Run(fmt.Sprintf("awaitRecovery/%v", c.answers), func(t *testing.T) {
			t.Parallel()
			f := &fakeProbe{answers: c.answers, takes: 10 * time.Millisecond, own: own}
			healed := time.Now()
			took, last, recovered := awaitRecovery(context.Background(), f.ask, healed, bound)
			if recovered != c.recovered || last != c.last || (recovered && (took <= 0 || took > time.Since(healed))) {
				t.Errorf("awaitRecovery with answers %v = %v after %v, last %d: want recovered %v, last %d", c.answers, recovered, took, last, c.recovered, c.last)
			}
		})
	}
}
