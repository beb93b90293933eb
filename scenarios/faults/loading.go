package faults

import "github.com/skewcheck/skewcheck/framework"

// Loading is s with the route the load takes, which the faults that are clients of the
// entry themselves (slow-client, slow-body) need.
func (s Subject) Loading(r framework.Route) Subject {
	s.load = r
	return s
}
