package app

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skewcheck/skewcheck/clusters/binaries"
	"github.com/skewcheck/skewcheck/clusters/dataplane"
	"github.com/skewcheck/skewcheck/clusters/front"
	clustersgateway "github.com/skewcheck/skewcheck/clusters/gateway"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/suites"
)

// flagValues are, by flag name, the values a shell's completion offers wherever a command
// has the flag, asked of the registries, the suites, the cache and the kubeconfig when the
// user presses tab, so a value that registers itself is offered without a change here.
// list says the flag takes several values, comma-separated: each is completed after the
// last comma, without those given already.
var flagValues = map[string]struct {
	values func(cmd *cobra.Command) []string
	list   bool
}{
	"profiles":  {func(*cobra.Command) []string { return profilesOf(suites.All()) }, true},
	"focus":     {testIDs, false},
	"skip":      {testIDs, false},
	"dataplane": {func(*cobra.Command) []string { return dataplane.Names() }, false},
	"reference": {func(*cobra.Command) []string { return front.ReferenceNames() }, false},
	"gateway":   {func(*cobra.Command) []string { return clustersgateway.ReferenceNames() }, false},
	"versions":  {cachedVersions, true},
	"context":   {kubeconfigContexts, false},
	"contexts":  {kubeconfigContexts, true},
}

// registerCompletions gives every command under root that has one of flagValues' flags
// its values, and never files (the shell's default).
func registerCompletions(root *cobra.Command) {
	for name, fv := range flagValues {
		forEachCommand(root, func(c *cobra.Command) {
			if c.Flags().Lookup(name) == nil {
				return
			}
			_ = c.RegisterFlagCompletionFunc(name, func(cmd *cobra.Command, _ []string, typed string) ([]string, cobra.ShellCompDirective) {
				return offered(fv.values(cmd), typed, fv.list), cobra.ShellCompDirectiveNoFileComp
			})
		})
	}
}

func forEachCommand(c *cobra.Command, do func(*cobra.Command)) {
	do(c)
	for _, sub := range c.Commands() {
		forEachCommand(sub, do)
	}
}

// offered are the values that complete typed: of a list, after its last comma, each
// prefixed with what comes before it and without the values given already. A value may
// carry a description after a tab, which the shells show beside it.
func offered(values []string, typed string, list bool) []string {
	given, last := "", typed
	if i := strings.LastIndex(typed, ","); list && i >= 0 {
		given, last = typed[:i+1], typed[i+1:]
	}
	done := strings.Split(strings.TrimSuffix(given, ","), ",")
	var out []string
	for _, v := range values {
		name, _, _ := strings.Cut(v, "\t")
		if strings.HasPrefix(name, last) && !slices.Contains(done, name) {
			out = append(out, given+v)
		}
	}
	return out
}

// testIDs are the IDs of every test, each with its description, for --focus and --skip
// (which match "[ID] description": an ID selects its test).
func testIDs(*cobra.Command) []string {
	var out []string
	for _, t := range suites.All() {
		out = append(out, t.ID+"\t"+t.Description)
	}
	return out
}

// cachedVersions are the kube-apiserver versions in the binaries cache (--cache-dir, else
// the default one), newest first: those a run starts without a build or a download. The
// cache holds <cache>/bin/<component>/<version>/<component> (binaries.Ensure); each is
// offered only when Ensure, from the cache alone, takes it.
func cachedVersions(cmd *cobra.Command) []string {
	dir, _ := cmd.Flags().GetString("cache-dir")
	if dir == "" {
		dir = binaries.DefaultCacheDir()
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "bin", string(binaries.KubeAPIServer)))
	var out []string
	for _, e := range entries {
		opts := binaries.Options{CacheDir: dir, Source: binaries.SourceCache}
		if _, err := binaries.Ensure(context.Background(), binaries.KubeAPIServer, e.Name(), opts); e.IsDir() && err == nil {
			out = append(out, e.Name())
		}
	}
	slices.SortFunc(out, func(a, b string) int { return framework.CompareVersions(b, a) })
	return out
}

// kubeconfigContexts are the contexts of --kubeconfig, or of the kubeconfig found as
// kubectl finds it (findKubeconfig), sorted.
func kubeconfigContexts(cmd *cobra.Command) []string {
	explicit, _ := cmd.Flags().GetString("kubeconfig")
	src, err := findKubeconfig(explicit)
	if err != nil {
		return nil
	}
	cfg, err := src.rules.Load()
	if err != nil {
		return nil
	}
	var out []string
	for name := range cfg.Contexts {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}
