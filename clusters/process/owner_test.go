package process

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

func TestOwnerGone(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatalf("running true, to have the pid of a process that is gone: %v", err)
	}
	dead := cmd.ProcessState.Pid()
	cases := map[string]bool{
		fmt.Sprintf("skewcheck-%d-chaos-123", dead):         true,
		fmt.Sprintf("skewcheck-%d-chaos-123", os.Getpid()):  false, // ours
		fmt.Sprintf("skewcheck-%d-chaos-123", os.Getppid()): false, // alive
		"skewcheck-chaos-123":                               false, // no pid: not ours to judge
		fmt.Sprintf("other-%d-x", dead):                     false,
		"skewcheck-0-x":                                     false,
	}
	for name, want := range cases {
		if got := OwnerGone(name, "skewcheck-", "-"); got != want {
			t.Errorf("OwnerGone(%q) = %v, want %v", name, got, want)
		}
	}
}
