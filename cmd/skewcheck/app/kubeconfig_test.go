//go:build !incluster

package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeKubeconfig writes a kubeconfig of the given YAML body into dir as name, and
// returns its path.
func writeKubeconfig(t *testing.T, dir, name, body string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("apiVersion: v1\nkind: Config\n"+body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// noKubeconfig is an environment in which kubectl would find no kubeconfig: $KUBECONFIG
// unset and a home without ~/.kube/config.
func noKubeconfig(t *testing.T) (home string) {
	home = t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("KUBECONFIG", "")
	return home
}

// unreachable is a kubeconfig body whose one context, a, reaches https://127.0.0.1:1,
// where nothing listens: a command that read it fails there, reaching no cluster.
const unreachable = `clusters: [{name: c, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: x}}]
contexts: [{name: a, context: {cluster: c, user: u}}]
current-context: a
`

// TestFindKubeconfigAsKubectl: --kubeconfig alone, else $KUBECONFIG's files merged, else
// ~/.kube/config, and an error saying what was tried when there is none.
func TestFindKubeconfigAsKubectl(t *testing.T) {
	home := noKubeconfig(t)
	if _, err := findKubeconfig(""); err == nil || err.Error() != "no kubeconfig: --kubeconfig unset, $KUBECONFIG unset, ~/.kube/config absent: give --kubeconfig" {
		t.Errorf("nothing to find: %v", err)
	}

	homeFile := writeKubeconfig(t, home, ".kube/config", `clusters: [{name: h, cluster: {server: "https://home.example"}}]
users: [{name: u, user: {token: x}}]
contexts: [{name: home, context: {cluster: h, user: u}}]
current-context: home
`)
	src, err := findKubeconfig("")
	if err != nil {
		t.Fatal(err)
	}
	if cfg, err := src.restConfig(""); err != nil || cfg.Host != "https://home.example" {
		t.Errorf("~/.kube/config: %v, %v; want its server", cfg, err)
	}

	// Two files, merged: the first's current context; the second's context, cluster and
	// user; a context of the second whose user is the first's.
	dir := t.TempDir()
	first := writeKubeconfig(t, dir, "first", `clusters: [{name: c1, cluster: {server: "https://first.example"}}]
users: [{name: u1, user: {token: x}}]
contexts: [{name: one, context: {cluster: c1, user: u1}}]
current-context: one
`)
	second := writeKubeconfig(t, dir, "second", `clusters: [{name: c2, cluster: {server: "https://second.example"}}]
users: [{name: u2, user: {token: t2}}]
contexts: [{name: two, context: {cluster: c2, user: u2}}, {name: split, context: {cluster: c2, user: u1}}]
current-context: two
`)
	t.Setenv("KUBECONFIG", first+string(os.PathListSeparator)+second)
	if src, err = findKubeconfig(""); err != nil {
		t.Fatal(err)
	}
	for context, want := range map[string]string{"": "https://first.example", "two": "https://second.example", "split": "https://second.example"} {
		if cfg, err := src.restConfig(context); err != nil || cfg.Host != want {
			t.Errorf("$KUBECONFIG merged, context %q: %v, %v; want %s", context, cfg, err, want)
		}
	}
	for context, want := range map[string][2]string{"": {first, "one"}, "two": {second, "two"}} {
		if path, name, err := src.file(context); err != nil || path != want[0] || name != want[1] {
			t.Errorf("one file for context %q: %s, %q, %v; want %s", context, path, name, err, want)
		}
	}
	if _, _, err := src.file("split"); err == nil || !strings.Contains(err.Error(), "kubectl config view --minify --flatten --context split") {
		t.Errorf("one file for a context split over two: %v, want how to make one", err)
	}

	// --kubeconfig is read alone, $KUBECONFIG and ~/.kube/config ignored.
	if src, err = findKubeconfig(homeFile); err != nil {
		t.Fatal(err)
	}
	if cfg, err := src.restConfig(""); err != nil || cfg.Host != "https://home.example" {
		t.Errorf("--kubeconfig: %v, %v; want its server", cfg, err)
	}

	t.Setenv("KUBECONFIG", filepath.Join(dir, "nosuch"))
	if _, err := findKubeconfig(""); err == nil || !strings.Contains(err.Error(), "no file of $KUBECONFIG ("+filepath.Join(dir, "nosuch")+") exists") {
		t.Errorf("$KUBECONFIG of no file: %v", err)
	}
}

// TestExistingClusterCommandsReadKUBECONFIG: certify, observe, cleanup and cluster skew
// need no --kubeconfig when $KUBECONFIG is set: each goes on to the server it names (where
// nothing listens), and without one each says what it tried.
func TestExistingClusterCommandsReadKUBECONFIG(t *testing.T) {
	noKubeconfig(t)
	for _, args := range [][]string{{"certify"}, {"observe"}, {"cleanup"}, {"cluster", "skew", "--context", "a"}} {
		if out, code := runApp(t, t.TempDir(), args...); code != 1 || !strings.Contains(out, "no kubeconfig: --kubeconfig unset, $KUBECONFIG unset, ~/.kube/config absent: give --kubeconfig") {
			t.Errorf("%v without a kubeconfig: exit %d, want 1 and what was tried:\n%s", args, code, out)
		}
	}
	t.Setenv("KUBECONFIG", writeKubeconfig(t, t.TempDir(), "kubeconfig", unreachable))
	for _, args := range [][]string{{"observe", "--for", "1m"}, {"cleanup"}, {"cluster", "skew", "--context", "a"}, {"cluster", "skew", "--contexts", "a"}} {
		if out, code := runApp(t, t.TempDir(), args...); code != 1 || !strings.Contains(out, "127.0.0.1:1") {
			t.Errorf("%v with $KUBECONFIG: exit %d, want 1 trying https://127.0.0.1:1:\n%s", args, code, out)
		}
	}
}

// TestConformanceSaysItIgnoresKUBECONFIG: conformance tests a cluster it starts unless
// --kubeconfig is given, and says so when $KUBECONFIG is set.
func TestConformanceSaysItIgnoresKUBECONFIG(t *testing.T) {
	t.Setenv("KUBECONFIG", "")
	if line := localNotKubeconfig(); line != "" {
		t.Errorf("$KUBECONFIG unset: %q, want nothing", line)
	}
	t.Setenv("KUBECONFIG", "/k/one")
	if line := localNotKubeconfig(); !strings.Contains(line, "not $KUBECONFIG's (/k/one)") || !strings.Contains(line, `--kubeconfig "$KUBECONFIG"`) {
		t.Errorf("$KUBECONFIG set: %q, want the line saying how to test its cluster", line)
	}
	t.Setenv("KUBECONFIG", "/k/one"+string(os.PathListSeparator)+"/k/two")
	if line := localNotKubeconfig(); !strings.Contains(line, "--kubeconfig with the one of its files") {
		t.Errorf("$KUBECONFIG a list: %q, want --kubeconfig of one of its files", line)
	}
}
