package local

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// A test run or a CLI interrupted with Ctrl-C must not leave clusters behind. Apiserver
// processes die with their parent anyway (parent-death signal), but embedded etcd's data,
// the cluster directory and the address slot are ours to remove. So while any cluster is
// alive, SIGINT and SIGTERM first delete every live cluster, then take their default
// effect. Programs that handle these signals themselves (the supervisor, the conformance
// command) delete their clusters too; Delete runs once however many ask.
var live = struct {
	sync.Mutex
	clusters map[*Cluster]bool
	watching bool
}{clusters: map[*Cluster]bool{}}

func track(c *Cluster) {
	live.Lock()
	defer live.Unlock()
	live.clusters[c] = true
	if live.watching {
		return
	}
	live.watching = true
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-sigs
		live.Lock()
		var all []*Cluster
		for c := range live.clusters {
			all = append(all, c)
		}
		live.Unlock()
		for _, c := range all {
			c.Delete()
		}
		signal.Reset(os.Interrupt, syscall.SIGTERM)
		p, _ := os.FindProcess(os.Getpid())
		p.Signal(sig)
	}()
}

func untrack(c *Cluster) {
	live.Lock()
	defer live.Unlock()
	delete(live.clusters, c)
}
