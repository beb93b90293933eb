package upgrade

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// lookEvery is how often, in seconds, a server back from a step is looked at again for what
// shows it restarted; leaseRenewal is how long after a restart its process is read again:
// kube-apiserver renews its identity lease every 10 s (IdentityLeaseRenewIntervalPeriod),
// so by then the new process holds it.
const lookEvery, leaseRenewal = 1.0, 15.0

// back records a server's return from its step at the version it answers. A new version is a
// restart; anything else waits for confirm to find what shows one.
func (w *watcher) back(ctx context.Context, name string, s *serverState, t float64) {
	if s.step < 0 {
		return
	}
	st := &w.r.Steps[s.step]
	st.Up, st.To = t, s.version
	if st.Confirmed = versionChanged(*st); st.Confirmed != "" {
		s.rebaseTo(w.processes(ctx, name)[name], t)
		w.progress("%.1fs: %s is back, restarted: %s\n", t, name, st.Confirmed)
		return
	}
	s.pending, s.tried = s.step, t-lookEvery
	w.progress("%.1fs: %s is back at %s: looking for what shows it restarted\n", t, name, s.version)
}

// confirm looks, at most every lookEvery, at each server back from a step that nothing has
// shown restarted yet. The first look can come before the new process has written its lease
// (1.28 to 1.34 keep the old one, old holder and all, until then), so it looks again until
// something shows it, the server leaves again or the watch ends. It also reads again the
// process of a server restarted a lease renewal ago.
func (w *watcher) confirm(ctx context.Context, t float64) {
	for _, name := range slices.Sorted(maps.Keys(w.servers)) {
		s := w.servers[name]
		if !s.up {
			continue
		}
		switch {
		case s.pending >= 0 && t-s.tried >= lookEvery:
			s.tried = t
			now := w.processes(ctx, name)[name]
			st := &w.r.Steps[s.pending]
			if st.Confirmed = s.proc.restartShown(now); st.Confirmed == "" {
				w.why[s.pending] = fmt.Sprintf("its version stayed %s, and %s", st.To, s.proc.sameShown(now))
				continue
			}
			delete(w.why, s.pending)
			s.pending = -1
			s.rebaseTo(now, t)
			w.progress("%.1fs: %s restarted: %s\n", t, name, st.Confirmed)
		case s.rebase > 0 && t >= s.rebase:
			s.proc, s.rebase = w.processes(ctx, name)[name], 0
		}
	}
}

// rebaseTo makes now the process s runs, but for a holder the old process held too (a lease
// the new one has not renewed yet), and has it read again a renewal later.
func (s *serverState) rebaseTo(now process, t float64) {
	if now.holder == s.proc.holder {
		now.holder = ""
	}
	s.proc, s.rebase = now, t+leaseRenewal
}

// splitGaps takes out of r.Steps every step whose server came back with nothing showing it
// restarted: each is a readiness gap.
func (w *watcher) splitGaps() {
	var steps []Step
	for i, st := range w.r.Steps {
		if st.Confirmed == "" {
			st.Confirmed = versionChanged(st)
		}
		if st.Up == 0 || st.Confirmed != "" {
			steps = append(steps, st)
			continue
		}
		w.r.Gaps = append(w.r.Gaps, Gap{Server: st.Server, Start: st.Start, End: st.Up,
			Why: cmp.Or(w.why[i], fmt.Sprintf("its version stayed %s, and the watch ended before its process was compared", st.To))})
	}
	w.r.Steps = steps
}

// restarted says whether some step showed its server restarted.
func (r *Result) restarted() bool {
	return slices.ContainsFunc(r.Steps, func(st Step) bool { return st.Confirmed != "" })
}

// gapsText lists the readiness gaps for a sentence.
func (r *Result) gapsText() string {
	var out []string
	for _, g := range r.Gaps {
		out = append(out, fmt.Sprintf("%s unready %.1fs to %.1fs (%s)", g.Server, g.Start, g.End, g.Why))
	}
	return strings.Join(out, "; ")
}
