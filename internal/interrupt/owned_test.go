package interrupt

import (
	"syscall"
	"testing"
	"time"
)

// Once the program owns its exit, an interrupt runs the cleanups and leaves the process
// running: without Owned the handler would end this test binary with SIGINT.
func TestOwnedInterruptRunsCleanupsAndLeavesTheExitToTheProgram(t *testing.T) {
	ran := make(chan struct{})
	unregister := OnInterrupt(func() { close(ran) })
	defer unregister()
	Owned()
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ran:
	case <-time.After(10 * time.Second):
		t.Fatal("the cleanup did not run within 10 s of SIGINT")
	}
	// The handler has returned or is about to: were it to re-raise SIGINT, the process
	// would end within this wait.
	time.Sleep(500 * time.Millisecond)
}
