package clusters

import (
	"errors"
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
	return fmt.Sprintf("provider %s does not offer %s", e.Provider, e.Capability.Words())
}

// ErrNoServers is a Spec with no server in it.
var ErrNoServers = errors.New("a cluster needs at least one server: name one version per apiserver")

// ErrPortInUse is a port something else on this machine already listens on, found before
// the cluster needs it.
type ErrPortInUse struct {
	// Role is what needed it: ServerPort (an apiserver's secure port, the one a caller
	// chooses), or the provider's own ("etcd", "peer path").
	Role string
	IP   string
	Port int
	Err  error
}

// ServerPort is ErrPortInUse's Role for an apiserver's secure port (Spec.Port).
const ServerPort = "apiserver"

func (e ErrPortInUse) Error() string {
	return fmt.Sprintf("port %d on %s, for the %s, is in use (%v): stop whatever listens there (ss -ltnp 'sport = :%d')", e.Port, e.IP, e.Role, e.Err, e.Port)
}

func (e ErrPortInUse) Unwrap() error { return e.Err }
