// Package app is the skewcheck command line: one file per command, each mapping its flags to
// what the harness runs and writing to the streams it is given, so a test can run any command
// in process (Run with buffers) and package main only adds the re-exec hooks and os.Exit.
package app

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

// version is stamped at release time with
// -ldflags "-X github.com/skewcheck/skewcheck/cmd/skewcheck/app.version=...".
var version = "dev"

// IOStreams are the streams a command reads from and writes to: its results to Out, its
// progress, warnings and errors to ErrOut.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// StdStreams are the process's own standard streams.
func StdStreams() IOStreams {
	return IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}
}

// NewCommand is the root command, skewcheck, with every command under it.
func NewCommand(streams IOStreams) *cobra.Command {
	root := &cobra.Command{
		Use:           "skewcheck",
		Short:         "Conformance and chaos tests for the proxies of Kubernetes under version skew",
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(streams.In)
	root.SetOut(streams.Out)
	root.SetErr(streams.ErrOut)
	addVerbosityFlag(root)
	root.AddCommand(commands(streams)...)
	flagsFromContractEnv(root)
	registerCompletions(root)
	helpOfUnknownTopicFails(root)
	return root
}

// helpOfUnknownTopicFails makes `skewcheck help NOSUCH` fail as `skewcheck NOSUCH` does:
// exit 1, an error naming the topic on ErrOut. cobra's help prints the usage and exits 0,
// so a typo in a script would pass unnoticed.
func helpOfUnknownTopicFails(root *cobra.Command) {
	root.InitDefaultHelpCmd()
	help, _, err := root.Find([]string{"help"})
	if err != nil || help == root {
		return
	}
	run := help.Run
	help.Run = nil
	help.RunE = func(c *cobra.Command, args []string) error {
		cmd, rest, err := c.Root().Find(args)
		if cmd != nil && err == nil && len(rest) == 0 {
			run(c, args)
			return nil
		}
		if cmd == nil || len(rest) == 0 {
			cmd, rest = c.Root(), args
		}
		var also string
		if s := cmd.SuggestionsFor(rest[0]); len(s) > 0 {
			also = " (did you mean " + strings.Join(s, " or ") + "?)"
		}
		return fmt.Errorf("no help topic %q%s: see %s", strings.Join(args, " "), also,
			strings.Replace(cmd.CommandPath(), c.Root().Name(), c.CommandPath(), 1))
	}
}

// Run runs the command line args (without the program's name) and returns the process's
// exit code: 0, 1 for a failure or an error, or a command's own (exitError), such as
// exitIncomplete. An error is printed to streams.ErrOut, worded with the flag that asked.
func Run(args []string, streams IOStreams) (exitCode int) {
	root := NewCommand(streams)
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		err = wordError(err)
		fmt.Fprintln(streams.ErrOut, "error:", err)
		var e exitError
		if errors.As(err, &e) {
			return e.code
		}
		return 1
	}
	return 0
}

// exitIncomplete is the exit code of a conformance run in which nothing failed but tests
// that apply could not run: 1 stays the implementation's failure (or an error).
const exitIncomplete = 2

// exitError is an error that ends the command with its own exit code.
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string { return e.err.Error() }
func (e exitError) Unwrap() error { return e.err }
