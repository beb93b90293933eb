package upgrade

import "fmt"

// window is a span in which one server is out: a step (its restart, until the cluster
// converged) or a fault on it, each with the declared window after it.
type window struct {
	server, name string
	start, end   float64
}

// windows are the run's steps and faults as windows.
func (r *Result) windows() []window {
	var out []window
	for _, s := range r.Steps {
		end := s.End
		if s.Unconverged != "" && s.Up > 0 {
			end = min(end, s.Up)
		}
		out = append(out, window{server: s.Server, name: fmt.Sprintf("the window of %s's step (hop %d)", s.Server, s.Hop), start: s.Start, end: end + r.Window})
	}
	for _, f := range r.Faults {
		out = append(out, window{server: f.Server, name: fmt.Sprintf("the window of the %s fault on %s", f.Fault, f.Server), start: f.Start, end: f.End + r.Window})
	}
	return out
}

// windowsOf are the windows e's request overlaps, from when it was sent to when its answer
// came: a request sent before a server went out and failed by it was subject to it.
func (r *Result) windowsOf(e Event) []window {
	from := e.T
	if e.Sent > 0 && e.Sent < e.T {
		from = e.Sent
	}
	var out []window
	for _, w := range r.windows() {
		if from <= w.end && e.T >= w.start {
			out = append(out, w)
		}
	}
	return out
}

// inWindow reports whether e's request overlaps a step or a fault, or the declared window
// after one.
func (r *Result) inWindow(e Event) bool { return len(r.windowsOf(e)) > 0 }
