package images

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/testcontainers/testcontainers-go"

	"github.com/skewcheck/skewcheck/clusters/containers"
)

// BuildTimeout bounds a build: testcontainers-go retries failed builds with a backoff.
const BuildTimeout = 5 * time.Minute

// Image is a FROM scratch image to build.
type Image struct {
	// Ref is the tag it gets in the local engine.
	Ref string
	// Entrypoint is a static executable on this machine, copied to /entrypoint; when empty,
	// the entrypoint is the first of HostExecutables, at its own path.
	Entrypoint string
	// Cmd is the entrypoint's default arguments.
	Cmd []string
	// HostExecutables are executables of this machine copied to the same paths in the
	// image, each with the shared libraries and loader it needs (ldd), so that a program
	// the entrypoint runs by name (nft for knftables) works in an image with no base.
	HostExecutables []string
	// Links are symbolic links made in the image, by path, each to its target: names a
	// multi-call binary of HostExecutables answers to (busybox runs as the applet its name
	// says, so /bin/sh -> busybox is a shell).
	Links map[string]string
	// Labels are the image's, so skewcheck can find what it built (docker images --filter label=...).
	Labels map[string]string
}

// Build builds a FROM scratch image, tagged ref, holding the static executable binary as
// its entrypoint with cmd as its arguments. The image stays in the local engine.
func Build(ctx context.Context, rt *containers.Runtime, binary, ref string, cmd []string, progress io.Writer) error {
	return BuildImage(ctx, rt, Image{Ref: ref, Entrypoint: binary, Cmd: cmd}, progress)
}

// BuildImage builds img into the local engine. Nothing is pulled: FROM scratch has no base.
func BuildImage(ctx context.Context, rt *containers.Runtime, img Image, progress io.Writer) error {
	dir, err := os.MkdirTemp("", "skewcheck-image-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := writeContext(dir, img); err != nil {
		return err
	}
	repo, tag := splitRef(img.Ref)
	ctx, cancel := context.WithTimeout(ctx, BuildTimeout)
	defer cancel()
	_, err = rt.Provider().BuildImage(ctx, &testcontainers.ContainerRequest{FromDockerfile: testcontainers.FromDockerfile{
		Context: dir, Repo: repo, Tag: tag, KeepImage: true, BuildLogWriter: progress}})
	if err != nil {
		return fmt.Errorf("building image %s: %w", img.Ref, err)
	}
	return nil
}

// writeContext writes img's build context into dir: the Dockerfile, the entrypoint and
// rootfs/, the tree copied onto the image's root (the host executables, their libraries
// and the links, which COPY keeps as links).
func writeContext(dir string, img Image) error {
	if img.Entrypoint == "" && len(img.HostExecutables) == 0 {
		return fmt.Errorf("image %s: nothing to run (no entrypoint, no host executable)", img.Ref)
	}
	var dockerfile strings.Builder
	dockerfile.WriteString("FROM scratch\n")
	entrypoint := "/entrypoint"
	if img.Entrypoint != "" {
		if err := requireStatic(img.Entrypoint); err != nil {
			return err
		}
		if err := copyFile(img.Entrypoint, filepath.Join(dir, "entrypoint")); err != nil {
			return fmt.Errorf("putting %s into the build context: %w", img.Entrypoint, err)
		}
		dockerfile.WriteString("COPY entrypoint /entrypoint\n")
	}
	if len(img.HostExecutables) > 0 {
		files, err := withLibraries(img.HostExecutables)
		if err != nil {
			return err
		}
		if img.Entrypoint == "" {
			entrypoint = files[0]
		}
		for _, f := range files {
			if err := copyFile(f, filepath.Join(dir, "rootfs", f)); err != nil {
				return fmt.Errorf("putting %s into the build context: %w", f, err)
			}
		}
	}
	for _, link := range slices.Sorted(maps.Keys(img.Links)) {
		p := filepath.Join(dir, "rootfs", link)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.Symlink(img.Links[link], p); err != nil {
			return fmt.Errorf("putting the link %s -> %s into the build context: %w", link, img.Links[link], err)
		}
	}
	if len(img.HostExecutables) > 0 || len(img.Links) > 0 {
		// A scratch image has no PATH of its own: programs run by name are found here.
		dockerfile.WriteString("COPY rootfs/ /\nENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n")
	}
	for _, k := range slices.Sorted(maps.Keys(img.Labels)) {
		kv, _ := json.Marshal(img.Labels[k]) // a JSON string is a Dockerfile string
		fmt.Fprintf(&dockerfile, "LABEL %s=%s\n", k, kv)
	}
	ep, _ := json.Marshal([]string{entrypoint})
	args, _ := json.Marshal(img.Cmd)
	dockerfile.WriteString("ENTRYPOINT " + string(ep) + "\nCMD " + string(args) + "\n")
	return os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte(dockerfile.String()), 0o644)
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

// copyFile copies src to dst, making dst's directory, with src's permissions.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, st.Mode().Perm()|0o400)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
