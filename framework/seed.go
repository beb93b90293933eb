package framework

import "time"

// SeedOrClock is seed, or, when it is 0 (every --seed's default), one from the clock: six
// digits, short enough to type back as --seed and replay the run.
func SeedOrClock(seed int64) int64 {
	if seed == 0 {
		return time.Now().UnixNano() % 1_000_000
	}
	return seed
}
