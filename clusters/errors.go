package clusters

import (
	"fmt"
	"strings"
)

// ErrUnknownProvider is a provider name no package registered.
type ErrUnknownProvider struct {
	Provider string
	Known    []string // the registered providers, sorted
}

func (e ErrUnknownProvider) Error() string {
	return fmt.Sprintf("unknown provider %q: the providers are %s", e.Provider, strings.Join(e.Known, ", "))
}

// ErrNotSupported is a capability a provider lacks. The library says which; a command
// says which of its flags asked for it (see cmd/skewcheck).
type ErrNotSupported struct {
	Provider   string
	Capability Capability
}

func (e ErrNotSupported) Error() string {
	return fmt.Sprintf("provider %s does not offer %s", e.Provider, e.Capability)
}
