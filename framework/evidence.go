package framework

import (
	"sync"
)

// Evidence collects every probe response of the running test, so that when a test fails
// the report shows what was actually sent and received, not only the assertion.
var Evidence = &evidence{}

type evidence struct {
	mu        sync.Mutex
	responses []Response
}

func (e *evidence) add(r Response) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.responses) < 500 {
		e.responses = append(e.responses, r)
	}
}

// Take returns the responses recorded since the last Take and starts afresh.
func (e *evidence) Take() []Response {
	e.mu.Lock()
	defer e.mu.Unlock()
	r := e.responses
	e.responses = nil
	return r
}
