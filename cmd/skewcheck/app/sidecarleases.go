package app

import "fmt"

// applySidecarLeases hands the sidecar's lease declaration (--sidecar-lease-*) to the
// sidecar, checked: the races run through it.
func (f *conformanceFlags) applySidecarLeases() error {
	l := &f.sidecarLeases
	if l.Name == "" && len(l.Labels) == 0 && l.URLAnnotation == "" {
		return nil
	}
	if !f.sidecar.Enabled() {
		return fmt.Errorf("--sidecar-lease-* declare how a sidecar registers: give --sidecar-command or --sidecar-image too")
	}
	if err := l.Check(); err != nil {
		return fmt.Errorf("%w: give all of --sidecar-lease-name, --sidecar-lease-labels and --sidecar-lease-url-annotation", err)
	}
	f.sidecar.Leases = l
	return nil
}
