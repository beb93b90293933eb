package docscheck

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// root is the module's root, seen from this package's directory (where go test runs).
const root = "../.."

// pages are README.md and every page under docs/.
func pages(t *testing.T) []string {
	t.Helper()
	out := []string{filepath.Join(root, "README.md")}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// lines are a page's lines outside code blocks (fenced, or indented four spaces), each with
// its number.
func lines(t *testing.T, page string) map[int]string {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]string{}
	fenced := false
	for i, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			continue
		}
		if !fenced && !strings.HasPrefix(l, "    ") && !strings.HasPrefix(l, "\t") {
			out[i+1] = l
		}
	}
	return out
}

var (
	link    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading = regexp.MustCompile(`^#{1,6}\s+(.*)$`)
	code    = regexp.MustCompile("`[^`]*`")
)

// slug is the anchor GitHub gives a heading: lower case, punctuation but - and _ dropped,
// spaces made -.
func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors are the headings' anchors of a page.
func anchors(t *testing.T, page string) map[string]bool {
	out := map[string]bool{}
	for _, l := range lines(t, page) {
		if m := heading.FindStringSubmatch(l); m != nil {
			out[slug(m[1])] = true
		}
	}
	return out
}

// Every relative link of every page names a file or directory that exists, and its
// #anchor, if any, a heading of the page it names.
func TestLinksResolve(t *testing.T) {
	n := 0
	for _, page := range pages(t) {
		for num, l := range lines(t, page) {
			for _, m := range link.FindAllStringSubmatch(code.ReplaceAllString(l, ""), -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				n++
				file, anchor, _ := strings.Cut(target, "#")
				path := page
				if file != "" {
					path = filepath.Join(filepath.Dir(page), file)
					if _, err := os.Stat(path); err != nil {
						t.Errorf("%s:%d: the link %q names nothing: %v", rel(page), num, target, err)
						continue
					}
				}
				if anchor != "" && strings.HasSuffix(path, ".md") && !anchors(t, path)[anchor] {
					t.Errorf("%s:%d: the link %q names no heading of %s", rel(page), num, target, rel(path))
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no relative link found: the pages were not read")
	}
}

// cells counts a table row's cells as GitHub does: unescaped pipes, the outer ones not
// separating anything.
func cells(row string) int {
	row = strings.TrimSpace(strings.ReplaceAll(row, `\|`, ""))
	row = strings.TrimPrefix(strings.TrimSuffix(row, "|"), "|")
	return strings.Count(row, "|") + 1
}

var delimiter = regexp.MustCompile(`^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?$`)

// Every table renders as one: a run of lines that begin with | has a delimiter row
// second, with as many cells as the header, and every row has that many cells (GitHub
// drops a row's extra cells, and shows a run without its delimiter row as plain text).
func TestTablesRender(t *testing.T) {
	tables := 0
	for _, page := range pages(t) {
		ls := lines(t, page)
		last := 0
		for num := range ls {
			last = max(last, num)
		}
		for num := 1; num <= last; num++ {
			l, ok := ls[num]
			if !ok || !strings.HasPrefix(strings.TrimSpace(l), "|") || strings.HasPrefix(strings.TrimSpace(ls[num-1]), "|") {
				continue
			}
			tables++
			header := cells(l)
			if d := strings.TrimSpace(ls[num+1]); !delimiter.MatchString(d) || cells(d) != header {
				t.Errorf("%s:%d: a table whose second line is not a delimiter row of %d cells (%q): it renders as plain text", rel(page), num, header, d)
				continue
			}
			for r := num + 2; strings.HasPrefix(strings.TrimSpace(ls[r]), "|"); r++ {
				if c := cells(ls[r]); c != header {
					t.Errorf("%s:%d: a row of %d cells in a table of %d (escape a | in a cell as \\|)", rel(page), r, c, header)
				}
			}
		}
	}
	if tables == 0 {
		t.Fatal("no table found: the pages were not read")
	}
}

func rel(p string) string {
	r, err := filepath.Rel(root, p)
	if err != nil {
		return p
	}
	return r
}
