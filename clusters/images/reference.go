package images

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/testcontainers/testcontainers-go"

	"github.com/skewcheck/skewcheck/clusters/containers"
)

// BuildTimeout bounds a build: testcontainers-go retries failed builds with a backoff.
const BuildTimeout = 5 * time.Minute

// Reference builds the reference peer proxy's image, tagged ref, from binary: a static
// skewcheck executable. Its command is `skewcheck reference peerproxy` with no arguments:
// it takes every flag the sidecar contract covers from its SKEWCHECK_* variable, since a
// scratch image has no shell to expand them into a command line.
func Reference(ctx context.Context, rt *containers.Runtime, binary, ref string, progress io.Writer) error {
	return Build(ctx, rt, binary, ref, []string{"reference", "peerproxy"}, progress)
}

// Build builds a FROM scratch image, tagged ref, holding the static executable binary as
// its entrypoint with cmd as its arguments. The image stays in the local engine.
func Build(ctx context.Context, rt *containers.Runtime, binary, ref string, cmd []string, progress io.Writer) error {
	if err := requireStatic(binary); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "skewcheck-image-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := copyFile(binary, filepath.Join(dir, "entrypoint")); err != nil {
		return fmt.Errorf("putting %s into the build context: %w", binary, err)
	}
	args, _ := json.Marshal(cmd)
	dockerfile := "FROM scratch\nCOPY entrypoint /entrypoint\nENTRYPOINT [\"/entrypoint\"]\nCMD " + string(args) + "\n"
	if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte(dockerfile), 0o644); err != nil {
		return err
	}
	repo, tag := splitRef(ref)
	ctx, cancel := context.WithTimeout(ctx, BuildTimeout)
	defer cancel()
	_, err = rt.Provider().BuildImage(ctx, &testcontainers.ContainerRequest{FromDockerfile: testcontainers.FromDockerfile{
		Context: dir, Repo: repo, Tag: tag, KeepImage: true, BuildLogWriter: progress}})
	if err != nil {
		return fmt.Errorf("building image %s from %s: %w", ref, binary, err)
	}
	return nil
}

// splitRef splits name[:tag] into name and tag (latest when absent); a colon before the
// last slash belongs to a registry's port.
func splitRef(ref string) (repo, tag string) {
	i := strings.LastIndex(ref, ":")
	if i < 0 || i < strings.LastIndex(ref, "/") {
		return ref, "latest"
	}
	return ref[:i], ref[i+1:]
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
