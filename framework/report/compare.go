package report

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
)

// Row is one test's results side by side across runs (upstream, reference, ...).
type Row struct {
	ID          string            `json:"id"`
	Description string            `json:"description"`
	Results     map[string]string `json:"results"` // run name -> passed/failed/skipped/not-applicable/deviation
	// Measurements are the figures each run took, run name -> name -> value.
	Measurements map[string]map[string]float64 `json:"measurements,omitempty"`
	// SpecVsCode are the test's points where the specification and upstream's code
	// disagree, from the first run that carries them (they are the test's, not a run's).
	SpecVsCode []SpecVsCode `json:"specVsCode,omitempty"`
}

// Comparison is several conformance runs of the same tests, side by side.
type Comparison struct {
	Runs []string `json:"runs"`
	Rows []Row    `json:"rows"`
}

// Compare puts runs side by side, by test ID. A pass with a known upstream deviation shows
// as "deviation", so the table never hides one as a plain pass.
func Compare(names []string, runs []*Conformance) Comparison {
	c := Comparison{Runs: names}
	rows := map[string]*Row{}
	for i, r := range runs {
		for _, t := range r.Tests {
			row, ok := rows[t.ID]
			if !ok {
				row = &Row{ID: t.ID, Description: t.Description, Results: map[string]string{}}
				rows[t.ID] = row
			}
			result := string(t.Result)
			if outcome(t.Result) == Skipped && skipKind(t) == NotApplicable {
				result = string(NotApplicable)
			}
			if t.KnownDeviation != "" {
				result = "deviation"
			}
			row.Results[names[i]] = result
			if len(row.SpecVsCode) == 0 {
				row.SpecVsCode = t.SpecVsCode
			}
			if len(t.Measurements) > 0 {
				if row.Measurements == nil {
					row.Measurements = map[string]map[string]float64{}
				}
				row.Measurements[names[i]] = t.Measurements
			}
		}
	}
	for _, r := range rows {
		c.Rows = append(c.Rows, *r)
	}
	sort.Slice(c.Rows, func(i, j int) bool { return c.Rows[i].ID < c.Rows[j].ID })
	return c
}

// Markdown renders the comparison as a table a person reads.
func (c Comparison) Markdown() string {
	var b strings.Builder
	b.WriteString("| test | " + strings.Join(c.Runs, " | ") + " | description |\n")
	b.WriteString("|---|" + strings.Repeat("---|", len(c.Runs)) + "---|\n")
	for _, r := range c.Rows {
		cells := []string{r.ID}
		for _, run := range c.Runs {
			cell := r.Results[run]
			if cell == "" {
				cell = "-"
			}
			var ms []string
			for k, v := range r.Measurements[run] {
				ms = append(ms, fmt.Sprintf("%s=%.3f", k, v))
			}
			sort.Strings(ms)
			if len(ms) > 0 {
				cell += " (" + strings.Join(ms, ", ") + ")"
			}
			cells = append(cells, cell)
		}
		cells = append(cells, r.Description)
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	var ids []string
	points := map[string][]SpecVsCode{}
	for _, r := range c.Rows {
		if len(r.SpecVsCode) > 0 {
			ids = append(ids, r.ID)
			points[r.ID] = r.SpecVsCode
		}
	}
	if table := SpecVsCodeMarkdown(ids, points); table != "" {
		b.WriteString("\n## " + SpecVsCodeTitle + "\n\n" + SpecVsCodeIntro + "\n\n" + table)
	}
	return b.String()
}

// Read loads a conformance report written by Write from its directory (or JSON file).
func Read(path string) (*Conformance, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = strings.TrimSuffix(path, "/") + "/" + JSONFile
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading report: %w (give a --report-dir of an earlier skewcheck conformance run)", err)
	}
	var c Conformance
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("report %s: %w", path, err)
	}
	return &c, nil
}
