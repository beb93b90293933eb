package local

import "github.com/skewcheck/skewcheck/internal/interrupt"

// A test run or a CLI interrupted with Ctrl-C must not leave clusters behind. Apiserver
// processes die with their parent anyway (parent-death signal), but embedded etcd's data,
// the cluster directory and the address slot are ours to remove: every live cluster is
// deleted on interrupt. Delete runs once however many ask (the CLI's own handlers too).
func track(c *Cluster) {
	c.untrack = interrupt.OnInterrupt(func() { c.Delete() })
}

func untrack(c *Cluster) {
	if c.untrack != nil {
		c.untrack()
	}
}
