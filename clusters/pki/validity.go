package pki

import "time"

const (
	// leafValidity is how long serving and client certificates last. A year
	// outlives any test run by far, yet a bundle left on disk does not stay
	// usable forever.
	leafValidity = 365 * 24 * time.Hour

	// caValidity is how long CAs last: long enough that a CA never expires
	// before the leaves it signs, even when a leaf is issued from a bundle
	// that Load found on disk months later.
	caValidity = 10 * 365 * 24 * time.Hour

	// backdate moves NotBefore into the past. The certificates are used the
	// moment they are made, sometimes by processes in containers or VMs
	// whose clocks run slightly behind; without it they would be rejected
	// as "not yet valid".
	backdate = time.Hour
)

// validity returns NotBefore and NotAfter for a certificate issued now that
// should last for d, never outliving notAfterLimit (the issuer's NotAfter),
// because a chain is only as valid as its shortest-lived link. A zero
// notAfterLimit means no limit (self-signed CAs).
func validity(now time.Time, d time.Duration, notAfterLimit time.Time) (notBefore, notAfter time.Time) {
	notBefore = now.Add(-backdate).UTC()
	notAfter = now.Add(d).UTC()
	if !notAfterLimit.IsZero() && notAfter.After(notAfterLimit) {
		notAfter = notAfterLimit
	}
	return notBefore, notAfter
}
