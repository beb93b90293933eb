package faults

// Observer is a fault that measures something of its own while it lasts, beside the load:
// the slow connections it holds (did the front cut them, when, with what answer), the long
// answer it waits for through a slow upstream. chaos.Measure asks it once the fault is
// healed and puts what it saw into the outcome.
type Observer interface {
	Observed() Observation
}

// Observation is what an Observer saw.
type Observation struct {
	// Notes are its figures in words, one per kind of thing watched, for the table's note.
	Notes []string
	// Broken200 counts answers that began 200 and did not end whole (the body cut short,
	// or not the document it claimed): a proxy that times out after the status is sent
	// leaves clients a success they cannot read.
	Broken200 int
}
