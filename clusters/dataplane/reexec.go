//go:build !incluster

package dataplane

import "github.com/skewcheck/skewcheck/internal/reexec"

// The reference dataplane is this binary re-executed on a node: main runs it through reexec.
// skewcheck's image (the tag incluster) runs no dataplane, and linking the hook would keep
// the whole reference dataplane in it (3 MB).
func init() { reexec.Register(RunReferenceIfCalled) }
