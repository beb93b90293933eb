package kind

import (
	"fmt"
	"io"

	kindlog "sigs.k8s.io/kind/pkg/log"
)

// logger passes kind's user-facing messages (V(0): "Preparing nodes", warnings, errors) to
// the progress writer, and drops its debug levels.
type logger struct{ w io.Writer }

func (l logger) Warn(m string)                        { fmt.Fprintln(l.w, "kind: "+m) }
func (l logger) Warnf(f string, a ...any)             { l.Warn(fmt.Sprintf(f, a...)) }
func (l logger) Error(m string)                       { fmt.Fprintln(l.w, "kind: error: "+m) }
func (l logger) Errorf(f string, a ...any)            { l.Error(fmt.Sprintf(f, a...)) }
func (l logger) V(v kindlog.Level) kindlog.InfoLogger { return info{w: l.w, on: v <= 0} }

type info struct {
	w  io.Writer
	on bool
}

func (i info) Info(m string) {
	if i.on {
		fmt.Fprintln(i.w, "kind: "+m)
	}
}
func (i info) Infof(f string, a ...any) { i.Info(fmt.Sprintf(f, a...)) }
func (i info) Enabled() bool            { return i.on }
