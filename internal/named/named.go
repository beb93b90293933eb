// Package named is a registry of things known by name (dataplanes, reference fronts),
// each registered once, listed in registration order: the order help texts list them in.
// A second registration of a name panics, a programming error the first test finds.
package named

import (
	"fmt"
	"sync"
)

// Registry holds values of T by the name nameOf gives them; what says what they are, for
// the panic.
type Registry[T any] struct {
	what   string
	nameOf func(T) string
	mu     sync.Mutex
	items  []T
}

// New is an empty registry of what, named by nameOf.
func New[T any](what string, nameOf func(T) string) *Registry[T] {
	return &Registry[T]{what: what, nameOf: nameOf}
}

// Register adds v; a name registered before panics.
func (r *Registry[T]) Register(v T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, have := range r.items {
		if r.nameOf(have) == r.nameOf(v) {
			panic(fmt.Sprintf("%s %q registered twice", r.what, r.nameOf(v)))
		}
	}
	r.items = append(r.items, v)
}

// All are the registered values, in registration order.
func (r *Registry[T]) All() []T {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]T(nil), r.items...)
}

// Names are their names, in registration order.
func (r *Registry[T]) Names() []string {
	var out []string
	for _, v := range r.All() {
		out = append(out, r.nameOf(v))
	}
	return out
}

// Lookup is the value registered as name.
func (r *Registry[T]) Lookup(name string) (T, bool) {
	for _, v := range r.All() {
		if r.nameOf(v) == name {
			return v, true
		}
	}
	var zero T
	return zero, false
}
