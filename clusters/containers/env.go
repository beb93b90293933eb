package containers

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// FromEnv turns a command's KEY=VALUE environment into a container's, and lists the
// directories of the files it names (absolute paths that exist), to be mounted at the same
// paths: then a contract written for commands, whose variables hold paths, holds word for
// word for an image.
func FromEnv(kvs []string) (env map[string]string, dirs []string) {
	env = map[string]string{}
	for _, kv := range kvs {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
		if !filepath.IsAbs(v) {
			continue
		}
		if st, err := os.Stat(v); err == nil && !st.IsDir() && !slices.Contains(dirs, filepath.Dir(v)) {
			dirs = append(dirs, filepath.Dir(v))
		}
	}
	return env, dirs
}
