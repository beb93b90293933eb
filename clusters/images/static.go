package images

import (
	"debug/elf"
	"fmt"
)

// requireStatic fails when binary needs a dynamic loader, which a FROM scratch image lacks
// (a Go binary built with cgo, the default where a C compiler is installed).
func requireStatic(binary string) error {
	f, err := elf.Open(binary)
	if err != nil {
		return fmt.Errorf("reading %s as a Linux executable: %w", binary, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return ErrDynamic{Path: binary}
		}
	}
	return nil
}

// ErrDynamic says an executable meant for a FROM scratch image needs a dynamic loader.
type ErrDynamic struct{ Path string }

func (e ErrDynamic) Error() string {
	return fmt.Sprintf("%s is dynamically linked (built with cgo), and a FROM scratch image has no C library: "+
		"build a static one with `CGO_ENABLED=0 go build -o skewcheck-static ./cmd/skewcheck` and use that", e.Path)
}
