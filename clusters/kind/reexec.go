package kind

import "github.com/skewcheck/skewcheck/internal/reexec"

// The docker shim is this binary started as docker: main runs it through reexec.
func init() { reexec.Register(RunDockerShimIfCalled) }
