package report

import (
	"fmt"
	"io"
	"strings"
)

// SpecVsCodeTitle heads every rendering of the points where the specification and
// upstream's code disagree, so a reader finds the same words in the terminal, the
// Markdown comparison and the docs.
const SpecVsCodeTitle = "KEP says / code does"

// SpecVsCodeIntro says in one sentence what the points are and which side the tests take.
const SpecVsCodeIntro = "Where the KEP's text and upstream's code disagree about what a test checks, the test asserts what the code does, the behaviour users of upstream get (docs/spec-vs-code.md)."

// WriteSpecVsCode writes, for a terminal, each selected test's points with both sides and
// where each is written; nothing when no selected test has one (a run focused elsewhere
// has nothing to say about them).
func WriteSpecVsCode(w io.Writer, tests []Test) {
	var with []Test
	for _, t := range tests {
		if len(t.SpecVsCode) > 0 && t.SkipKind != Deselected {
			with = append(with, t)
		}
	}
	if len(with) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s: %s\n", strings.ToUpper(SpecVsCodeTitle), SpecVsCodeIntro)
	for _, t := range with {
		for _, p := range t.SpecVsCode {
			says := p.Spec + " says:"
			width := max(len(says), len("code does:"))
			fmt.Fprintf(w, "  %s  %s, %s\n", t.ID, p.Spec, p.Section)
			fmt.Fprintf(w, "      %-*s %s\n", width, says, p.SpecSays)
			fmt.Fprintf(w, "      %-*s %s\n", width, "code does:", p.CodeDoes)
			fmt.Fprintf(w, "      %-*s %s%s\n", width, "code:", p.CodeRef, codeVersions(p))
		}
	}
	fmt.Fprintln(w)
}

// SpecVsCodeMarkdown renders the points of the tests given (by ID, in the order given) as
// one Markdown table, a row per point; "" when there is none.
func SpecVsCodeMarkdown(ids []string, points map[string][]SpecVsCode) string {
	var b strings.Builder
	for _, id := range ids {
		for _, p := range points[id] {
			if b.Len() == 0 {
				b.WriteString("| test | section | spec says | code does (the test asserts this) | code |\n|---|---|---|---|---|\n")
			}
			cells := []string{id, p.Spec + ", " + p.Section, p.SpecSays, p.CodeDoes, p.CodeRef + codeVersions(p)}
			for i, c := range cells {
				cells[i] = strings.ReplaceAll(strings.Join(strings.Fields(c), " "), "|", `\|`)
			}
			b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
		}
	}
	return b.String()
}

// codeVersions says which releases' code the reference was read in, when it is recorded.
func codeVersions(p SpecVsCode) string {
	if p.CodeVersions == "" {
		return ""
	}
	return " (read in " + p.CodeVersions + ")"
}
