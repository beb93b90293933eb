package faults

// Expectation is what clients of a proxy must see while a fault lasts, beyond what every
// fault requires of it (no acknowledged write lost, no 404 while the server serving the
// resource is still registered, success again once the fault is healed).
type Expectation string

const (
	// Measured: nothing more is required; what clients saw is measured and reported
	// (latency, a slow peer, a graceful stop).
	Measured Expectation = ""
	// Unavailable: no request can reach the server, which stays registered, so a proxy has
	// no honest answer but 503 (crash, refused, a partition, every silent fault).
	Unavailable Expectation = "503"
	// Unnoticed: nothing a client can see may change: every read answers 200 and every
	// write 201 while it lasts (a certificate replaced by an equally valid one, a slow
	// client on another connection).
	Unnoticed Expectation = "unnoticed"
)
