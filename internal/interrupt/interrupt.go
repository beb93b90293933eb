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
	owned    bool
}{cleanups: map[int]func(){}}

// Owned says the program handles SIGINT and SIGTERM itself (skewcheck's commands cancel
// their work and exit with their own code): the handler then runs the cleanups and leaves
// the exit to the program. Without it, a Ctrl-C while a command deleted its cluster ran the
// cluster's cleanup here and then ended the process with the signal's default action,
// before the command could exit with the verdict it had printed (TestContainersInterrupted:
// exit -1, twice in make test on 2026-12-02).
func Owned() {
	state.Lock()
	defer state.Unlock()
	state.owned = true
}

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
	state.Lock()
	owned := state.owned
	state.Unlock()
	if owned {
		return
	}
	// Programs that handle the signal themselves have done their part by now too; the
	// default action ends the process as the user asked.
	signal.Reset(os.Interrupt, syscall.SIGTERM)
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		p.Signal(sig)
	}
}
