package app

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/homedir"
)

// kubeconfigSource is the kubeconfig a command that acts on a cluster that already runs
// (certify, observe, cleanup, cluster skew) reads, found as kubectl finds it: --kubeconfig,
// else every file of $KUBECONFIG merged, else ~/.kube/config. conformance is not one of
// them: without --kubeconfig it tests a cluster it starts (localNotKubeconfig).
type kubeconfigSource struct {
	rules *clientcmd.ClientConfigLoadingRules
}

// findKubeconfig is the kubeconfig explicit (--kubeconfig) or the environment names, or an
// error saying what was tried when there is none.
func findKubeconfig(explicit string) (kubeconfigSource, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	// kubectl would copy a legacy ~/.kube/.kubeconfig to ~/.kube/config; a command that
	// reads a kubeconfig writes none.
	rules.MigrationRules = nil
	s := kubeconfigSource{rules: rules}
	if explicit != "" {
		rules.ExplicitPath = explicit // read alone, and it must exist, as kubectl does
		return s, nil
	}
	env := os.Getenv(clientcmd.RecommendedConfigPathEnvVar)
	if env == "" {
		// The home as it is now, not as client-go read it when it was initialised
		// (RecommendedHomeFile): the same in a run, and a test's HOME counts.
		rules.Precedence = []string{filepath.Join(homedir.HomeDir(), clientcmd.RecommendedHomeDir, clientcmd.RecommendedFileName)}
	}
	if len(s.files()) > 0 {
		return s, nil
	}
	if env == "" {
		return s, errors.New("no kubeconfig: --kubeconfig unset, $KUBECONFIG unset, ~/.kube/config absent: give --kubeconfig")
	}
	return s, fmt.Errorf("no kubeconfig: --kubeconfig unset, no file of $KUBECONFIG (%s) exists: give --kubeconfig, or set $KUBECONFIG to files that exist", env)
}

// files are the kubeconfig files read: --kubeconfig's, or those of the precedence that exist.
func (s kubeconfigSource) files() []string {
	if s.rules.ExplicitPath != "" {
		return []string{s.rules.ExplicitPath}
	}
	var out []string
	for _, f := range s.rules.Precedence {
		if _, err := os.Stat(f); err == nil {
			out = append(out, f)
		}
	}
	return out
}

// String names the files, for messages.
func (s kubeconfigSource) String() string { return "kubeconfig " + strings.Join(s.files(), ", ") }

// restConfig is the client config of context (the current one when ""), merged from every
// file as kubectl merges them, with the rate limits lifted as framework.RestConfig lifts
// them: the requests are the measurement, and client-go's default 5 QPS would pace them.
func (s kubeconfigSource) restConfig(context string) (*rest.Config, error) {
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(s.rules,
		&clientcmd.ConfigOverrides{CurrentContext: context}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("%s, context %q: %w", s, context, err)
	}
	cfg.QPS, cfg.Burst = 1000, 1000
	return cfg, nil
}

// file is one file that holds context (the current one when ""), and the context's name,
// for what takes a kubeconfig's path (the existing provider reads one file). A merged
// $KUBECONFIG is not flattened into a new file, which nothing would own: the first file
// defining the context is the one merging takes it from, so that file is used, provided
// merging takes the context's cluster and user from it too; otherwise the error says how
// to make one file that holds it all.
func (s kubeconfigSource) file(context string) (path, name string, err error) {
	files := s.files()
	if len(files) == 1 {
		return files[0], context, nil
	}
	merged, err := s.rules.Load()
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", s, err)
	}
	name = cmp.Or(context, merged.CurrentContext)
	if name == "" {
		return "", "", fmt.Errorf("%s: none of them sets a current-context: give --context (kubectl config get-contexts lists them)", s)
	}
	c, ok := merged.Contexts[name]
	if !ok {
		return "", "", fmt.Errorf("%s: no context %q in them: give --context with one they hold (kubectl config get-contexts)", s, name)
	}
	var contextIn, clusterIn, userIn string
	for _, f := range files {
		cfg, err := clientcmd.LoadFromFile(f)
		if err != nil {
			return "", "", fmt.Errorf("kubeconfig %s: %w", f, err)
		}
		if _, ok := cfg.Contexts[name]; ok && contextIn == "" {
			contextIn = f
		}
		if _, ok := cfg.Clusters[c.Cluster]; ok && clusterIn == "" {
			clusterIn = f
		}
		if _, ok := cfg.AuthInfos[c.AuthInfo]; ok && userIn == "" {
			userIn = f
		}
	}
	if (clusterIn != "" && clusterIn != contextIn) || (userIn != "" && userIn != contextIn) {
		return "", "", fmt.Errorf("%s: context %q is in %s, its cluster in %s and its user in %s, and this command reads one file: give --kubeconfig FILE, made with kubectl config view --minify --flatten --context %s > FILE",
			s, name, contextIn, clusterIn, userIn, name)
	}
	return contextIn, name, nil
}
