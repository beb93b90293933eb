package app

import (
	"os"
	"os/signal"
	"syscall"
)

// keepCatching stops a signal.NotifyContext (stop) without giving SIGINT and SIGTERM their
// default action back: from the end of a run's clean-up to the process's exit, a Ctrl-C
// would otherwise kill the CLI by the signal (exit -1 to a parent, no exit code of its
// own) although the run has its verdict, which it keeps (TestContainersInterrupted: the
// interrupt sent on "deleting the cluster" arrived, under make test's load, after a quick
// deletion). The channel is never read: the signals are dropped until the process exits.
func keepCatching(stop func()) {
	signal.Notify(make(chan os.Signal, 1), os.Interrupt, syscall.SIGTERM)
	stop()
}
