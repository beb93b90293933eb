//go:build !incluster

package app

import (
	"io"
	"testing"

	"github.com/spf13/cobra"
)

// TestEveryCommandDeclaresItsArguments: cobra lets a command that says nothing of its
// arguments take any, so `conformance --list foo bar` ran and exited 0. Every command that
// runs says what it takes (cobra.NoArgs for most), so a stray word is refused.
func TestEveryCommandDeclaresItsArguments(t *testing.T) {
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Runnable() && c.Args == nil && c.Name() != "help" {
			t.Errorf("%s declares no Args: give cobra.NoArgs, or what it takes", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(NewCommand(IOStreams{Out: io.Discard, ErrOut: io.Discard}))
}
