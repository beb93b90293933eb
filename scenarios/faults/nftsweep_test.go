package faults

import (
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"testing"
)

func TestDeadRunTables(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatalf("running true, to have the pid of a process that is gone: %v", err)
	}
	dead := cmd.ProcessState.Pid()
	listing := fmt.Sprintf("table inet filter\ntable inet skewcheck_%d_1\ntable inet skewcheck_%d_2\ntable inet skewcheck_%d_3\ntable inet skewcheck_x_1\ntable inet kube-proxy\n",
		dead, os.Getpid(), os.Getppid())
	got := deadRunTables(listing)
	if want := []string{fmt.Sprintf("skewcheck_%d_1", dead)}; !reflect.DeepEqual(got, want) {
		t.Errorf("deadRunTables = %v, want %v (only the dead run's; never ours, a live run's or another program's)", got, want)
	}
}
