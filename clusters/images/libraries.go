package images

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// withLibraries returns the executables and every shared library and loader they load, as
// ldd lists them (the dynamic loader's own answer, with ld.so.conf and the whole tree of
// dependencies), so each can be copied to the same path in an image: the loader looks for
// a library by the path ldd shows (copying follows links, so the file is real there).
func withLibraries(executables []string) ([]string, error) {
	var files []string
	add := func(p string) {
		if !slices.Contains(files, p) {
			files = append(files, p)
		}
	}
	for _, exe := range executables {
		path, err := exec.LookPath(exe)
		if err != nil {
			return nil, fmt.Errorf("%s is needed in the image and is not installed here: %w", exe, err)
		}
		add(path)
		out, err := exec.Command("ldd", path).CombinedOutput()
		if err != nil {
			if strings.Contains(string(out), "not a dynamic executable") {
				continue // static: nothing else to copy
			}
			return nil, fmt.Errorf("listing the shared libraries of %s (ldd %s): %v: %s", path, path, err, bytes.TrimSpace(out))
		}
		libs, err := parseLdd(out)
		if err != nil {
			return nil, fmt.Errorf("ldd %s: %w", path, err)
		}
		for _, l := range libs {
			add(l)
		}
	}
	return files, nil
}

// parseLdd reads the paths out of ldd's lines: "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6
// (0x...)", "/lib64/ld-linux-x86-64.so.2 (0x...)"; linux-vdso is the kernel's own.
func parseLdd(out []byte) ([]string, error) {
	var paths []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "linux-vdso") || strings.HasPrefix(line, "linux-gate") {
			continue
		}
		if strings.Contains(line, "=> not found") {
			return nil, fmt.Errorf("a library is missing on this machine: %s", line)
		}
		if _, after, ok := strings.Cut(line, "=> "); ok {
			line = after
		}
		if f := strings.Fields(line); len(f) > 0 && filepath.IsAbs(f[0]) {
			paths = append(paths, f[0])
		}
	}
	return paths, sc.Err()
}
