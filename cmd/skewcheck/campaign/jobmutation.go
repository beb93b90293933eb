package campaign

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/skewcheck/skewcheck/framework/matrix"
)

// A family of the mutation matrix is a line of the page's mutation table.
func init() {
	registerJobKind(matrix.JobMutation, func(ctx context.Context, n *night, j matrix.Job) {
		n.page.Mutations = append(n.page.Mutations, mutationFamily(ctx, n, j))
	})
}

// mutationFamily runs one family of the mutation matrix (its baseline and mutants) on the
// job's pair as a child skewcheck, and reads back what the index shows of it.
func mutationFamily(ctx context.Context, n *night, j matrix.Job) matrix.NightlyMutation {
	fmt.Fprintf(n.log, "== nightly: %s + %s: mutation matrix, family %s\n", j.From, j.To, j.Family)
	m := matrix.NightlyMutation{Family: j.Family, Dir: filepath.Join("mutation", j.Family)}
	dir := filepath.Join(n.ReportDir, m.Dir)
	os.Remove(filepath.Join(dir, matrix.MutationJSONFile)) // an earlier night's matrix must not stand in for this one's
	_, err := runChild(ctx, n.log, n.Self, "[mutation "+j.Family+"] ", nil, append([]string{"mutation", "--versions", j.From + "," + j.To,
		"--mutants", "^" + regexp.QuoteMeta(j.Family) + "/", "--seed", strconv.FormatInt(n.Seed, 10), "--report-dir", dir}, childBinaryFlags(n.Binaries)...))
	b, rerr := os.ReadFile(filepath.Join(dir, matrix.MutationJSONFile))
	var family matrix.Mutation
	if rerr == nil {
		rerr = json.Unmarshal(b, &family)
	}
	if rerr != nil {
		m.Error = fmt.Sprintf("%v; %v", err, rerr)
		return m
	}
	m.Summary, m.Problems, m.BaselineFailures = family.Summary(), family.Problems(), family.BaselineFailures()
	return m
}
