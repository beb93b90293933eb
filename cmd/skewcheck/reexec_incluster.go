//go:build incluster

package main

// reexecuted: the image that runs inside a cluster (the tag incluster) makes no kind
// cluster and runs no dataplane, so it is never started as anything else.
func reexecuted() {}
