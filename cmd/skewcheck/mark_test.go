package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// ownerMark is the environment entry every CLI run of test t carries, and with it every
// process the run starts (kube-proxy, the reference dataplane, apiservers inherit the
// environment): what outlives the run is found by the mark, exactly, while other packages'
// tests run beside this one under go test -p.
func ownerMark(t *testing.T) string {
	return fmt.Sprintf("SKEWCHECK_TEST_OWNER=%d/%s", os.Getpid(), t.Name())
}

// cliEnv is the environment of a CLI run of t: this process's, the mark, and extra.
func cliEnv(t *testing.T, extra ...string) []string {
	return append(append(os.Environ(), ownerMark(t)), extra...)
}

// markedProcesses lists the live processes carrying t's mark, as "pid command line".
func markedProcesses(t *testing.T) []string {
	mark := []byte(ownerMark(t))
	paths, _ := filepath.Glob("/proc/[0-9]*/environ")
	var out []string
	for _, p := range paths {
		env, err := os.ReadFile(p)
		if err != nil || !hasEntry(env, mark) {
			continue
		}
		dir := filepath.Dir(p)
		pid, _ := strconv.Atoi(filepath.Base(dir))
		if pid == os.Getpid() {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join(dir, "cmdline"))
		out = append(out, fmt.Sprintf("%d %s", pid, strings.TrimSpace(string(bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))))
	}
	return out
}

// hasEntry reports whether a NUL-separated environment holds entry exactly.
func hasEntry(env, entry []byte) bool {
	for _, e := range bytes.Split(env, []byte{0}) {
		if bytes.Equal(e, entry) {
			return true
		}
	}
	return false
}
