package app

import (
	"fmt"
	"io"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// buildInfo is what `skewcheck version` prints: enough to say which source a binary was
// built from when a report or a bug names it.
type buildInfo struct {
	// Version is the release stamped at build time ("dev" when none), as --version prints it.
	Version string `json:"version"`
	// ModuleVersion is the module's version as the go command recorded it: a tag for `go
	// install ...@v0.1.0`, "(devel)" for a build in a checkout.
	ModuleVersion string `json:"moduleVersion"`
	// Revision is the VCS commit of a build in a checkout, "" when the go command recorded
	// none; Modified says the work tree had changes then.
	Revision  string `json:"revision"`
	Modified  bool   `json:"modified"`
	GoVersion string `json:"goVersion"`
}

func newVersionCommand(streams IOStreams) *cobra.Command {
	var output outputFormat
	cmd := &cobra.Command{
		Use:     "version",
		Short:   "Print skewcheck's version, the revision it was built from and the Go version that built it",
		Example: "  skewcheck version\n  skewcheck version -o json",
		Args:    cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return printVersion(streams.Out, readBuildInfo(), output)
		},
	}
	addOutputFlag(cmd, &output)
	return cmd
}

// readBuildInfo reads what the go command recorded in the binary.
func readBuildInfo() buildInfo {
	b := buildInfo{Version: version}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	b.ModuleVersion, b.GoVersion = bi.Main.Version, bi.GoVersion
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

func printVersion(out io.Writer, b buildInfo, output outputFormat) error {
	return output.print(out, b, func() error {
		revision := b.Revision
		switch {
		case revision == "":
			revision = "unknown (the go command recorded none: built outside a checkout, or with -buildvcs=false)"
		case b.Modified:
			revision += " (modified)"
		}
		_, err := fmt.Fprintf(out, "skewcheck version %s\nmodule version: %s\nrevision: %s\ngo: %s\n", b.Version, b.ModuleVersion, revision, b.GoVersion)
		return err
	})
}
