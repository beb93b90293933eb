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
)

// TestDocumentedCommandLinesParse: every skewcheck command line README.md and docs/ show
// (in a code block or a code span, continued lines joined) names a command that exists
// and only flags that command has, so a renamed or removed flag cannot stay behind in a
// page a newcomer copies from.
func TestDocumentedCommandLinesParse(t *testing.T) {
	root := NewCommand(IOStreams{Out: io.Discard, ErrOut: io.Discard})
	pages := []string{"../../../README.md"}
	more, err := filepath.Glob("../../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, page := range append(pages, more...) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range commandLines(root, string(b)) {
			checked++
			if problem := checkCommandLine(root, line); problem != "" {
				t.Errorf("%s: %q: %s", filepath.Base(page), line, problem)
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d skewcheck command lines found in the docs: the finder is broken", checked)
	}
}

var (
	codeSpan    = regexp.MustCompile("`([^`]+)`")
	invocation  = regexp.MustCompile(`(?:^|[\s(;&|$])(?:bin/|\./)?skewcheck\s+([a-z].*)$`)
	placeholder = regexp.MustCompile(`[A-Z]{2,}|\.\.\.`)
)

// commandLines are the skewcheck invocations of a page, from "skewcheck" on: every one in
// a fenced block (a line ending in a backslash continued by the next), and those in code
// spans that begin with one of root's commands.
func commandLines(root *cobra.Command, page string) []string {
	var out []string
	fenced, pending := false, ""
	for _, line := range strings.Split(page, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced, pending = !fenced, ""
			continue
		}
		if fenced {
			line = pending + strings.TrimSpace(line)
			if strings.HasSuffix(line, `\`) {
				pending = strings.TrimSuffix(line, `\`) + " "
				continue
			}
			pending = ""
			if m := invocation.FindStringSubmatch(line); m != nil {
				out = append(out, m[1])
			}
			continue
		}
		for _, span := range codeSpan.FindAllStringSubmatch(line, -1) {
			// a table cell's "a\|b" names alternatives: the first stands for them
			text, _, _ := strings.Cut(span[1], `\|`)
			// prose about skewcheck in a span ("skewcheck exit code N") is no command line
			if m := invocation.FindStringSubmatch(text); m != nil && findSub(root, strings.Fields(m[1])[0]) != nil {
				out = append(out, m[1])
			}
		}
	}
	return out
}

// checkCommandLine says what is wrong with args (after "skewcheck") for root, "" when
// nothing is: the command path must exist, and every --flag it uses must be the command's.
// A comment ends the line; a shell word in quotes is one argument.
func checkCommandLine(root *cobra.Command, line string) string {
	if i := strings.Index(line, " #"); i >= 0 {
		line = line[:i]
	}
	words := shellWords(line)
	cmd := root
	i := 0
	for ; i < len(words); i++ {
		w := words[i]
		if strings.HasPrefix(w, "-") || placeholder.MatchString(w) {
			break
		}
		next := findSub(cmd, w)
		if next == nil {
			if cmd == root || len(cmd.Commands()) > 0 && cmd.Args == nil {
				return "no command " + strings.TrimSpace(cmd.CommandPath()+" "+w)
			}
			break // a positional argument
		}
		cmd = next
	}
	for _, w := range words[i:] {
		if !strings.HasPrefix(w, "--") || w == "--" {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(w, "--"), "=")
		if name == "help" || placeholder.MatchString(name) {
			continue
		}
		if cmd.Flags().Lookup(name) == nil && cmd.InheritedFlags().Lookup(name) == nil && cmd.PersistentFlags().Lookup(name) == nil {
			return cmd.CommandPath() + " has no flag --" + name
		}
	}
	return ""
}

func findSub(cmd *cobra.Command, name string) *cobra.Command {
	for _, c := range cmd.Commands() {
		if c.Name() == name || c.HasAlias(name) {
			return c
		}
	}
	return nil
}

// shellWords splits a command line as a shell would, near enough for the docs: by blanks
// outside quotes, the quotes removed. A $(...) or a pipe ends the command.
func shellWords(s string) []string {
	var out []string
	var cur strings.Builder
	quote := rune(0)
	in := false
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == '|' || r == ';' || r == '>' || r == '<' || r == '&':
			if in {
				out = append(out, cur.String())
			}
			return out
		case r == ' ' || r == '\t':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}
