// Command testsummary reads `go test -json` on its standard input and writes what a plain
// `go test` of many packages writes (each package's ok or FAIL line, the output of every
// failed test, build errors), then a summary: every skipped test with its reason, the ten
// slowest tests, and the time of each package. `make test` pipes into it:
//
//	go test -json ./... | go run ./internal/testsummary
//
// A test that skips says why, and the list says it again at the end, where nobody can miss
// it: a green run that skipped the Docker tests is not the run it looks like.
//
// It exits 1 when a test or package failed or a build broke, so the pipeline fails even
// where the shell has no pipefail; 2 when its input cannot be read.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	// Ctrl-C reaches the whole pipeline. go test passes it on and waits for the tests to
	// clean up (clusters, namespaces, nftables tables), writing as they go: were the summary
	// to die first, those writes would meet a closed pipe and kill the tests mid-cleanup.
	// So the summary reads on until go test ends, and reports the run as cut short.
	signal.Ignore(os.Interrupt, syscall.SIGTERM)
	s := newSummary(os.Stdout)
	if err := s.read(os.Stdin); err != nil {
		fmt.Fprintf(os.Stderr, "testsummary: reading go test -json from standard input: %v\n", err)
		s.print()
		os.Exit(2)
	}
	s.print()
	if s.failed() {
		os.Exit(1)
	}
}
