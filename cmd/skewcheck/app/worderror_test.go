package app

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/clusters"
)

// TestWordErrorWordsOnce: an error worded on its way up is worded again by Run on its way
// out; its advice must still be said once, and the typed error stay reachable.
func TestWordErrorWordsOnce(t *testing.T) {
	port := clusters.ErrPortInUse{Role: clusters.ServerPort, IP: "127.0.0.1", Port: 6443, Err: errors.New("address already in use")}
	once := wordError(fmt.Errorf("starting apiserver-1: %w", port))
	twice := wordError(fmt.Errorf("making the cluster: %w", once))
	if n := strings.Count(twice.Error(), "choose another port with --port"); n != 1 {
		t.Errorf("worded twice, the advice is said %d times: %v", n, twice)
	}
	if !errors.As(twice, &clusters.ErrPortInUse{}) {
		t.Errorf("the worded error lost its type: %v", twice)
	}
	if plain := errors.New("plain"); wordError(plain) != plain {
		t.Errorf("an error with nothing to word is changed: %v", wordError(plain))
	}
}
