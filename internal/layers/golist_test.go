package layers

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// pkg is one package of the module: its path inside the module, its name, and the packages
// of the module its own (non-test) files import.
type pkg struct {
	rel, name string
	imports   []string
}

// modulePackages lists the module's packages with `go list`, which needs no build: it only
// reads import clauses, so the check takes seconds.
func modulePackages() ([]pkg, error) {
	root, prefix, err := module()
	if err != nil {
		return nil, err
	}
	out, err := run(root, "go", "list", "-f", `{{.ImportPath}} {{.Name}} {{join .Imports " "}}`, "./...")
	if err != nil {
		return nil, err
	}
	var pkgs []pkg
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || !strings.HasPrefix(f[0], prefix) {
			return nil, fmt.Errorf("go list printed %q, not a package of %s", line, strings.TrimSuffix(prefix, "/"))
		}
		p := pkg{rel: strings.TrimPrefix(f[0], prefix), name: f[1]}
		for _, imp := range f[2:] {
			if strings.HasPrefix(imp, prefix) {
				p.imports = append(p.imports, strings.TrimPrefix(imp, prefix))
			}
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}

// module finds the module's root directory and its import path with a slash: the prefix
// of every package of it.
func module() (root, prefix string, err error) {
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", "", fmt.Errorf("go env GOMOD: %v", err)
	}
	root = filepath.Dir(strings.TrimSpace(string(gomod)))
	modPath, err := run(root, "go", "list", "-m")
	if err != nil {
		return "", "", err
	}
	return root, strings.TrimSpace(modPath) + "/", nil
}

func run(dir, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s %s in %s: %v: %s", name, strings.Join(args, " "), dir, err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}
