package images

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSkewcheckImageContext: skewcheck's image is its binary as entrypoint, running
// in-cluster, with busybox at /bin answering as sh and cat, so that hydrophone's exec of
// `sh -c "cat /tmp/results/e2e.log"` reads the log: the context's rootfs/, run on this
// machine with only its own /bin on the PATH, does exactly that.
func TestSkewcheckImageContext(t *testing.T) {
	if err := requireStaticBusybox(); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	if err := writeContext(dir, skewcheckImage(busybox, "skewcheck/skewcheck:test")); err != nil {
		t.Fatal(err)
	}
	dockerfile, _ := os.ReadFile(filepath.Join(dir, "Dockerfile"))
	for _, want := range []string{"FROM scratch\n", "COPY entrypoint /entrypoint\n", "COPY rootfs/ /\n", `ENTRYPOINT ["/entrypoint"]`, `CMD ["in-cluster"]`} {
		if !strings.Contains(string(dockerfile), want) {
			t.Errorf("the Dockerfile lacks %q:\n%s", want, dockerfile)
		}
	}
	bin := filepath.Join(dir, "rootfs", "bin")
	for _, link := range []string{"sh", "cat"} {
		if target, err := os.Readlink(filepath.Join(bin, link)); err != nil || target != "busybox" {
			t.Errorf("rootfs/bin/%s: a link to %q (%v), want one to busybox", link, target, err)
		}
	}
	log := filepath.Join(t.TempDir(), "e2e.log")
	if err := os.WriteFile(log, []byte("Will run 3 of 5 specs\n•\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(bin, "sh"), "-c", "cat "+log)
	cmd.Env = []string{"PATH=" + bin}
	out, err := cmd.CombinedOutput()
	if err != nil || string(out) != "Will run 3 of 5 specs\n•\n" {
		t.Errorf("sh -c 'cat e2e.log' in the image's /bin: %q, %v", out, err)
	}
}
