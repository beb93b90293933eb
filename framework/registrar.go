package framework

import (
	"context"
	"errors"
)

// FeatureRegistration: the suite knows how the proxies register their servers with one
// another, so it can race with that: kube-apiserver identity leases on upstream targets,
// or what the target declares (Target.Registrar). The clock faults act on it too, where
// the registrar can also rewrite a registration's renew time (RenewTimes): their words.
var FeatureRegistration = DeclareFeature("Registration", func(t *Target) string {
	if t.Unowned {
		return NotHere("a cluster skewcheck does not own (" + t.Kind + ") never has: a run never touches its registrations")
	}
	if !t.Upstream && t.Registrar == nil {
		return "the target (" + t.Kind + ") does not say how its proxies register with one another, and they are not kube-apiservers, which use identity leases: declare it (framework.Registrar on the target)"
	}
	return ""
}).Worded("a registrar with renew times")

// Registrar is how the proxies of a target learn which servers exist: the registration each
// server keeps alive while it runs, which peers read to know whom to route to. The races
// profile (scenarios/races) acts on it: it finds the registration of the server behind an
// endpoint, watches it, ends it while its server runs on, and forges one for a server that
// does not exist. A target declares it (Target.Registrar); upstream's kube-apiserver
// identity leases need no declaration (scenarios/races knows them).
//
// It names only what the races need, so a vendor whose proxies register some other way
// (their own leases, a service registry) can implement it in a few lines.
type Registrar interface {
	// Find is the registration of the server behind e; an error wrapping ErrNotRegistered
	// when that server has none (it has left, or never joined).
	Find(ctx context.Context, e *Endpoint) (Registration, error)
	// Read is the registration named name as it stands now; an error wrapping
	// ErrNotRegistered when it is gone or expired.
	Read(ctx context.Context, name string) (Registration, error)
	// Expire ends the registration named name as if it had expired, while its server runs
	// on: peers must forget the server until it registers again.
	Expire(ctx context.Context, name string) error
	// Forge registers a server that does not exist, at address (host:port) where nothing
	// answers; Expire removes it.
	Forge(ctx context.Context, address string) (Registration, error)
	// Mechanism says in a few words how the proxies register, for messages.
	Mechanism() string
}

// Registration is one server's registration: its name and who holds it. A server that
// restarts and registers afresh may hold it under a new holder; one that renews keeps it.
type Registration struct {
	Name   string
	Holder string
}

// ErrNotRegistered is a Registrar finding no registration.
var ErrNotRegistered = errors.New("not registered")
