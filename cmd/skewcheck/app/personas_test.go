//go:build !incluster

package app

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/suites"
	gatewaysuite "github.com/skewcheck/skewcheck/suites/gateway"
)

// The four newcomers issue 58 tried skewcheck as, each with the page written for them: a
// command line pasted from it must be one skewcheck (or make) takes.
var personas = []struct {
	who, page string
}{
	{"a platform engineer with one kubeconfig", "docs/certify-cluster.md"},
	{"a sidecar vendor", "docs/certify-sidecar.md"},
	{"a gateway vendor", "docs/certify-gateway.md"},
	{"a CI maintainer", "docs/reading-a-report.md"},
}

// TestPersonasCommandLinesAreTaken: every command line of a persona's page, taken verbatim
// from its fenced sh blocks (continued lines joined), is one the CLI takes, judged as the
// command judges it before any work: the command exists, its flags and their values parse,
// it has no stray argument, cobra's required and grouped flags are there, and
// conformance's own checks before bring-up (companion flags, profiles, selection, targets)
// and certify's of its --conformance-flag values pass. Nothing runs: no cluster, no file.
// A make line names a target of the Makefile and only variables it has. TestDocumentedCommandLinesParse
// checks every page's flag names; this one checks that a persona's lines would be
// accepted whole, as pasted.
func TestPersonasCommandLinesAreTaken(t *testing.T) {
	makefile, err := os.ReadFile(filepath.Join("..", "..", "..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range personas {
		t.Run(p.who, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("..", "..", "..", p.page))
			if err != nil {
				t.Fatal(err)
			}
			lines := shCommandLines(string(b))
			if len(lines) == 0 {
				t.Fatalf("%s has no command line in a fenced sh block: %s has nothing to paste", p.page, p.who)
			}
			for _, l := range lines {
				words := shellWords(l.text)
				var problem string
				switch words[0] {
				case "skewcheck", "bin/skewcheck":
					problem = takenByCLI(words[1:])
				case "make":
					problem = takenByMake(string(makefile), words[1:])
				default:
					continue // another tool's line (hydrophone, sonobuoy, go build)
				}
				if problem != "" {
					t.Errorf("%s:%d: %s\n\t%s", p.page, l.line, problem, l.text)
				}
			}
		})
	}
}

type shLine struct {
	line int
	text string
}

// shCommandLines are the lines of a page's ```sh blocks, a line ending in a backslash
// joined with the next, comments and blank lines left out, each from its first line.
func shCommandLines(page string) []shLine {
	var out []shLine
	in, pending, from := false, "", 0
	for i, l := range strings.Split(page, "\n") {
		trimmed := strings.TrimSpace(l)
		if strings.HasPrefix(trimmed, "```") {
			in, pending = trimmed == "```sh", ""
			continue
		}
		if !in || pending == "" && (trimmed == "" || strings.HasPrefix(trimmed, "#")) {
			continue
		}
		if pending == "" {
			from = i + 1
		}
		line := pending + trimmed
		if strings.HasSuffix(line, `\`) {
			pending = strings.TrimSuffix(line, `\`) + " "
			continue
		}
		pending = ""
		if i := strings.Index(line, " #"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		out = append(out, shLine{from, line})
	}
	return out
}

// takenByCLI says why skewcheck would refuse args before any work, "" when it would not.
func takenByCLI(args []string) string {
	streams := IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}
	root := NewCommand(streams)
	c, rest, err := root.Find(args)
	if err != nil || c == root {
		return "no such command: " + strings.Join(args, " ")
	}
	// conformance is made again with its flags at hand, so that its own checks can read them
	var f *conformanceFlags
	if c.Name() == "conformance" && c.Parent() == root {
		f = &conformanceFlags{timeouts: framework.DefaultTimeouts()}
		c = underRoot(conformanceCommandWith(streams, f))
	}
	if err := c.ParseFlags(rest); err != nil {
		return c.CommandPath() + ": " + err.Error()
	}
	for _, check := range []func() error{
		func() error { return c.ValidateArgs(c.Flags().Args()) },
		c.ValidateRequiredFlags,
		c.ValidateFlagGroups,
	} {
		if err := check(); err != nil {
			return c.CommandPath() + ": " + err.Error()
		}
	}
	switch {
	case f != nil:
		if err := conformanceChecks(c, f); err != nil {
			return c.CommandPath() + ": " + err.Error()
		}
	case c.Name() == "certify":
		extra, _ := c.Flags().GetStringArray("conformance-flag")
		if err := checkConformanceFlags(extra); err != nil {
			return c.CommandPath() + ": " + err.Error()
		}
	}
	return ""
}

// conformanceChecks are conformance's checks before any work, in the order its RunE makes
// them (a --list of every test has none).
func conformanceChecks(c *cobra.Command, f *conformanceFlags) error {
	if f.gateway.enabled() && !c.Flags().Changed("profiles") {
		f.run.Profiles = []string{gatewaysuite.Profile}
	}
	if f.list && !listsSelection(c, f) {
		return nil
	}
	if err := checkFlagsAlone(c, f); err != nil {
		return err
	}
	tests, err := framework.Select(suites.All(), f.run.Profiles)
	if err != nil {
		return err
	}
	return checkBeforeBringUp(f, tests)
}

var makeVariable = regexp.MustCompile(`^([A-Z][A-Z0-9_]*)=`)

// takenByMake says why the Makefile would not do what a make line asks: a target it lacks,
// or a variable it does not read.
func takenByMake(makefile string, args []string) string {
	for _, a := range args {
		if m := makeVariable.FindStringSubmatch(a); m != nil {
			if !strings.Contains(makefile, "$("+m[1]+")") {
				return "the Makefile reads no variable " + m[1]
			}
			continue
		}
		if strings.HasPrefix(a, "-") {
			continue
		}
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(a) + `:`).MatchString(makefile) {
			return "the Makefile has no target " + a
		}
	}
	return ""
}

// The judge refuses what the CLI would refuse before work, and takes what it would take:
// without this, a judge that passed everything would pass every page.
func TestPersonasJudgeRefuses(t *testing.T) {
	makefile, err := os.ReadFile(filepath.Join("..", "..", "..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		line    string
		refused bool
	}{
		{"bin/skewcheck conformance --versions v1.35.4,v1.36.3 --profiles mvp", false},
		{"skewcheck certify --kubeconfig k --conformance-flag=--audit-logs=a=/a.log,b=/b.log", false},
		{"make conformance CONFORMANCE_JOBS=1", false},
		{"skewcheck nosuch", true},
		{"skewcheck conformance --list foo", true},
		{"skewcheck conformance --sidecar-name acme", true},
		{"skewcheck conformance --port 70000", true},
		{"skewcheck conformance --versions v1.36.3 --profiles mvp", true},
		{"skewcheck conformance --focus NOMATCH-999", true},
		{"skewcheck conformance --timeout-request=-5s", true},
		{"skewcheck certify --conformance-flag=--nosuch", true},
		{"skewcheck cleanup --kubeconfig k --yes extra", true},
		{"make nosuch", true},
		{"make conformance NOSUCH_JOBS=1", true},
	} {
		words := shellWords(c.line)
		var problem string
		if words[0] == "make" {
			problem = takenByMake(string(makefile), words[1:])
		} else {
			problem = takenByCLI(words[1:])
		}
		if refused := problem != ""; refused != c.refused {
			t.Errorf("%s: refused %v (%q), want %v", c.line, refused, problem, c.refused)
		}
	}
}
