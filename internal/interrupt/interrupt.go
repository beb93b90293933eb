// Package interrupt runs cleanups when the process is interrupted (SIGINT, SIGTERM), so a
// test run or CLI stopped with Ctrl-C leaves no cluster, fault or firewall table behind.
// One handler serves every package: cleanups run newest first (a fault injected into a
// cluster heals before the cluster goes), then the signal takes its default effect.
package interrupt

import (
	"os"
	"os/signal"
	"sort"
	"sync"
	"syscall"
)

var state = struct {
	sync.Mutex
	next     int
	cleanups map[int]func()
	watching bool
}{cleanups: map[int]func(){}}

// OnInterrupt registers f to run if the process is interrupted; the returned function
// unregisters it (call it once the cleanup has run normally).
func OnInterrupt(f func()) (unregister func()) {
	state.Lock()
	defer state.Unlock()
	id := state.next
	state.next++
	state.cleanups[id] = f
	if !state.watching {
		state.watching = true
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
		go handle(sigs)
	}
	return func() {
		state.Lock()
		defer state.Unlock()
		delete(state.cleanups, id)
	}
}

func handle(sigs chan os.Signal) {
	sig := <-sigs
	state.Lock()
	var ids []int
	for id := range state.cleanups {
		ids = append(ids, id)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(ids)))
	fs := make([]func(), 0, len(ids))
	for _, id := range ids {
		fs = append(fs, state.cleanups[id])
	}
	state.Unlock()
	for _, f := range fs {
		f()
	}
	// Programs that handle the signal themselves have done their part by now too; the
	// default action ends the process as the user asked.
	signal.Reset(os.Interrupt, syscall.SIGTERM)
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		p.Signal(sig)
	}
}
