//go:build !incluster

package app

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/clusters/dataplane"
	"github.com/skewcheck/skewcheck/clusters/front"
	clustersgateway "github.com/skewcheck/skewcheck/clusters/gateway"
	"github.com/skewcheck/skewcheck/suites"
)

// complete runs cobra's hidden __complete command, as a shell's completion script does,
// and returns the values offered (without their descriptions) and the directive line.
func complete(t *testing.T, args ...string) ([]string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := Run(append([]string{"__complete"}, args...), IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}); code != 0 {
		t.Fatalf("__complete %v: exit %d: %s", args, code, errOut.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	var values []string
	for _, l := range lines[:len(lines)-1] {
		name, _, _ := strings.Cut(l, "\t")
		values = append(values, name)
	}
	return values, lines[len(lines)-1]
}

// TestFlagValueCompletion: the flags that name something skewcheck knows offer its names
// to a shell's completion, never files: profiles, test IDs, dataplanes, fronts, cached
// versions and the kubeconfig's contexts.
func TestFlagValueCompletion(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("SKEWCHECK_CACHE", cache)
	for _, v := range []string{"v1.35.4", "v1.36.3"} {
		bin := filepath.Join(cache, "bin", "kube-apiserver", v, "kube-apiserver")
		if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A version directory without its binary (an interrupted build) is not offered.
	if err := os.MkdirAll(filepath.Join(cache, "bin", "kube-apiserver", "v1.34.0"), 0o755); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("KUBECONFIG", "")
	writeKubeconfig(t, home, ".kube/config", contextsBody("home-a", "home-b"))
	explicit := writeKubeconfig(t, t.TempDir(), "vendor.kubeconfig", contextsBody("proxy-a", "proxy-b"))

	var ids []string
	for _, tc := range suites.All() {
		ids = append(ids, tc.ID)
	}
	mvp01 := slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return !strings.HasPrefix(id, "MVP-01") })
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"conformance", "--profiles", ""}, profilesOf(suites.All())},
		{[]string{"conformance", "--profiles", "mvp,d"}, []string{"mvp,discovery"}},
		{[]string{"certify", "--profiles", ""}, profilesOf(suites.All())},
		{[]string{"conformance", "--focus", ""}, ids},
		{[]string{"conformance", "--skip", "MVP-01"}, mvp01},
		{[]string{"conformance", "--dataplane", ""}, dataplane.Names()},
		{[]string{"conformance", "--reference", ""}, front.ReferenceNames()},
		{[]string{"cluster", "create", "--reference", ""}, front.ReferenceNames()},
		{[]string{"conformance", "--gateway", ""}, clustersgateway.ReferenceNames()},
		{[]string{"conformance", "--versions", ""}, []string{"v1.36.3", "v1.35.4"}},
		{[]string{"conformance", "--versions", "v1.36.3,"}, []string{"v1.36.3,v1.35.4"}},
		{[]string{"binaries", "ensure", "--versions", ""}, []string{"v1.36.3", "v1.35.4"}},
		{[]string{"conformance", "--context", ""}, []string{"home-a", "home-b"}},
		{[]string{"cluster", "skew", "--contexts", ""}, []string{"home-a", "home-b"}},
		{[]string{"conformance", "--kubeconfig", explicit, "--contexts", "proxy-a,"}, []string{"proxy-a,proxy-b"}},
		{[]string{"certify", "--kubeconfig", explicit, "--context", ""}, []string{"proxy-a", "proxy-b"}},
		{[]string{"conformance", "--list", "-o", ""}, []string{"text", "json", "yaml"}},
	} {
		got, directive := complete(t, c.args...)
		if !slices.Equal(got, c.want) || directive != ":4" {
			t.Errorf("__complete %s: %v, %s; want %v, :4 (ShellCompDirectiveNoFileComp)", strings.Join(c.args, " "), got, directive, c.want)
		}
	}
	if len(profilesOf(suites.All())) < 2 || len(dataplane.Names()) < 2 || len(front.ReferenceNames()) < 1 || len(clustersgateway.ReferenceNames()) < 1 {
		t.Errorf("a registry is empty: nothing above was checked")
	}
}

// contextsBody is a kubeconfig's YAML body with the contexts named.
func contextsBody(contexts ...string) string {
	b := "clusters: [{name: c, cluster: {server: \"https://127.0.0.1:6443\"}}]\nusers: [{name: u, user: {token: x}}]\ncontexts:\n"
	for _, c := range contexts {
		b += "- {name: " + c + ", context: {cluster: c, user: u}}\n"
	}
	return b
}
