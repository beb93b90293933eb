package nodeimage

import (
	"context"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// lock takes an exclusive lock on path, waiting (and saying so once) while another process
// holds it, so two builds of one cached thing do the work once.
func lock(ctx context.Context, path string, p *progress, what string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	for said := false; ; said = true {
		if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err == nil {
			return func() { unix.Flock(int(f.Fd()), unix.LOCK_UN); f.Close() }, nil
		}
		if !said {
			p.printf("waiting for another process that is making %s (lock %s)", what, path)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}
