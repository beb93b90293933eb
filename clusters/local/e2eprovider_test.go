package local

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/skewcheck/skewcheck/internal/integration"
)

// TestE2EFrameworkProvider drives the provider as sigs.k8s.io/e2e-framework does: create
// from a config file (clusters.FileConfig, over what the builder set), wait for the control
// plane, use its rest config, export logs, destroy.
func TestE2EFrameworkProvider(t *testing.T) {
	integration.Require(t)
	oldV, newV := integration.Versions()
	ctx := context.Background()
	p := NewProvider().WithName("builder").WithVersion("v1.30.0").(*Provider)
	file := filepath.Join(t.TempDir(), "cluster.yaml")
	if err := os.WriteFile(file, []byte("name: e2e\nservers:\n- version: "+oldV+"\n- version: "+newV+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	kubeconfig, err := p.CreateWithConfig(ctx, file)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Destroy(ctx) })
	if kubeconfig == "" || p.GetKubectlContext() != "e2e-apiserver-1" {
		t.Errorf("kubeconfig %q, context %q", kubeconfig, p.GetKubectlContext())
	}
	if err := p.WaitForControlPlane(ctx, nil); err != nil {
		t.Fatal(err)
	}
	cs := kubernetes.NewForConfigOrDie(p.KubernetesRestConfig())
	if _, err := cs.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{}); err != nil {
		t.Errorf("using the provider's rest config: %v", err)
	}
	logs := t.TempDir()
	if err := p.ExportLogs(ctx, logs); err != nil {
		t.Errorf("export logs: %v", err)
	}
	c := p.Cluster()
	if err := p.Destroy(ctx); err != nil {
		t.Fatal(err)
	}
	for _, s := range c.Servers {
		if s.State() != Stopped {
			t.Errorf("%s still %s after Destroy", s.Name, s.State())
		}
	}
	if _, err := os.Stat(c.Dir); !os.IsNotExist(err) {
		t.Errorf("Destroy left %s behind: %v", c.Dir, err)
	}
}
