package local

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/internal/integration"
)

// TestHoldClusterHelper is not a test on its own: TestInterruptedTestBinaryLeavesNothing
// runs this test binary again to play a go test that holds a cluster when Ctrl-C arrives.
func TestHoldClusterHelper(t *testing.T) {
	if os.Getenv("SKEWCHECK_HOLD_CLUSTER") == "" {
		t.Skip("helper process for TestInterruptedTestBinaryLeavesNothing")
	}
	oldV, newV := integration.Versions()
	c, err := New(context.Background(), Config{Name: "held", Servers: clusters.SpecsFor([]string{oldV, newV})})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("READY %s\n", c.Dir)
	select {}
}

func TestInterruptedTestBinaryLeavesNothing(t *testing.T) {
	integration.Require(t)
	tmp := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHoldClusterHelper$", "-test.v")
	cmd.Env = append(os.Environ(), "SKEWCHECK_HOLD_CLUSTER=1", "TMPDIR="+tmp)
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(out)
	var dir string
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "READY "); ok {
			dir = d
			break
		}
	}
	if dir == "" {
		t.Fatal("the helper never had a cluster")
	}
	cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the interrupted test binary did not exit within 60s")
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the interrupted test binary left its cluster directory %s", dir)
	}
	if left, _ := exec.Command("pgrep", "-af", tmp).Output(); len(left) > 0 {
		t.Errorf("processes left running:\n%s", left)
	}
	if m, _ := filepath.Glob(filepath.Join(tmp, "skewcheck-held-*")); len(m) > 0 {
		t.Errorf("left behind: %v", m)
	}
}
