//go:build !incluster

package app

import (
	"errors"
	"fmt"
	"os"

	"github.com/skewcheck/skewcheck/cmd/skewcheck/campaign"
)

// selfBinary is skewcheck's own binary, which a campaign runs as a child for each of its
// runs (each a pair, each a mutant).
func selfBinary(each string) (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("finding skewcheck's own binary to run each %s: %w", each, err)
	}
	return self, nil
}

// campaignExit maps a campaign's outcome to the command's exit code: Incomplete exits
// exitIncomplete, Failed and any other error 1.
func campaignExit(err error) error {
	var incomplete campaign.Incomplete
	if errors.As(err, &incomplete) {
		return exitError{code: exitIncomplete, err: err}
	}
	return err
}
