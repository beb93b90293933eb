package app

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// verbosity is the root's -v (--v), a level as kubectl's -v=4 and kind's -v 4 are: 0 is the
// default output, and from everyTestFrom on conformance prints every test as it runs. A
// persistent flag, so every command takes it where kubectl users type it; the root's
// --version is then long only (cobra gives it -v only while -v is free).
type verbosity int

// everyTestFrom is the level from which conformance prints every test as it runs, what
// the bool --verbose did before -v was a level.
const everyTestFrom = 1

func (v *verbosity) String() string { return strconv.Itoa(int(*v)) }
func (v *verbosity) Type() string   { return "level" }

func (v *verbosity) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return fmt.Errorf("-v takes a level, 0 or more, as kubectl's does: -v=%d (or more) prints every test as it runs", everyTestFrom)
	}
	*v = verbosity(n)
	return nil
}

// addVerbosityFlag gives root, and so every command under it, -v/--v.
func addVerbosityFlag(root *cobra.Command) {
	root.PersistentFlags().VarP(new(verbosity), "v", "v", fmt.Sprintf("how much to print, as kubectl's and kind's -v: 0 the default, %d or more every test of a conformance run as it runs", everyTestFrom))
}

// wordBareV words a -v given no level: before -v was a level it was the bool --verbose, so
// a script's bare -v is told the level to give, not only that one is needed.
func wordBareV(err error) (error, bool) {
	var bare *pflag.ValueRequiredError
	if errors.As(err, &bare) && bare.GetFlag() != nil && bare.GetFlag().Name == "v" {
		return fmt.Errorf("%w: -v takes a level, as kubectl's does: -v=%d (or more) prints every test as it runs", err, everyTestFrom), true
	}
	return nil, false
}

// verbosityOf is the -v cmd's command line gave: 0 when none, and for a command not under
// the root (as a test builds one).
func verbosityOf(cmd *cobra.Command) int {
	if f := cmd.Flag("v"); f != nil {
		if v, ok := f.Value.(*verbosity); ok {
			return int(*v)
		}
	}
	return 0
}

// underRoot puts c under a root with the root's persistent flags alone, so c parses a
// command line as it does under skewcheck (-v=4 included), for what parses conformance's
// flags apart from a run (certify's --conformance-flag, the in-cluster plan).
func underRoot(c *cobra.Command) *cobra.Command {
	root := &cobra.Command{Use: "skewcheck"}
	addVerbosityFlag(root)
	root.AddCommand(c)
	return c
}

// addVerboseAlias keeps conformance's --verbose, the bool -v was before it was a level, for
// the scripts that give it: hidden from the help, as kubectl and kind hide a deprecated
// flag, and warned of by warnVerboseAlias. Not cobra's MarkDeprecated: its warning goes to
// the command's output, which -o json keeps for the JSON.
func addVerboseAlias(cmd *cobra.Command, verbose *bool) {
	cmd.Flags().BoolVar(verbose, "verbose", false, fmt.Sprintf("deprecated: give -v=%d", everyTestFrom))
	_ = cmd.Flags().MarkHidden("verbose")
}

// applyVerbosity turns verbose on when -v is everyTestFrom or more, and warns of --verbose.
func applyVerbosity(cmd *cobra.Command, streams IOStreams, verbose *bool) {
	if cmd.Flags().Changed("verbose") {
		fmt.Fprintf(streams.ErrOut, "warning: --verbose is deprecated: give -v=%d (a level, as kubectl's -v)\n", everyTestFrom)
	}
	if verbosityOf(cmd) >= everyTestFrom {
		*verbose = true
	}
}
