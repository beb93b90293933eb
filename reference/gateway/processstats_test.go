package gateway_test

import (
	"fmt"
	"os"
	"runtime"
	"strings"
)

// stats is what a gateway process holds: descriptors, live Go heap (what is in use after
// a collection), resident memory, goroutines. The gateway processes of the benches and the
// soak (TestIdleGatewayProcess, TestBenchGatewayProcess's /stats) read it of themselves
// with heldNow and send it as one line (String), which their tests parse (parseStats).
type stats struct{ fds, heap, rss, goroutines int64 }

// heldNow is what this process holds now. It collects twice first: what sync.Pools keep
// survives one collection, and garbage not yet collected is not held.
func heldNow() stats {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	fds, _ := os.ReadDir("/proc/self/fd")
	return stats{fds: int64(len(fds)), heap: int64(m.HeapAlloc), rss: residentBytes(), goroutines: int64(runtime.NumGoroutine())}
}

func (s stats) String() string {
	return fmt.Sprintf("fds %d heap %d rss %d goroutines %d", s.fds, s.heap, s.rss, s.goroutines)
}

// parseStats reads a line String wrote.
func parseStats(line string) (stats, error) {
	var s stats
	if _, err := fmt.Sscanf(strings.TrimSpace(line), "fds %d heap %d rss %d goroutines %d", &s.fds, &s.heap, &s.rss, &s.goroutines); err != nil {
		return s, fmt.Errorf("the gateway process's stats %q: %w", line, err)
	}
	return s, nil
}

// residentBytes is the process's resident memory (VmRSS), 0 if unknown.
func residentBytes() int64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kb int64
			fmt.Sscanf(strings.TrimSpace(rest), "%d", &kb)
			return kb << 10
		}
	}
	return 0
}
