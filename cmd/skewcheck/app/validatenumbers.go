package app

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"
)

// checkPort refuses a --port no TCP socket can have, before a cluster is described with it
// (the servers would fail to start, one by one, after their binaries were found).
func (f *serverFlags) checkPort() error {
	if f.port < 1 || f.port > 65535 {
		return fmt.Errorf("--port %d is no TCP port: give one from 1 to 65535 (the default is 6443)", f.port)
	}
	return nil
}

// refuseNegativeDurations refuses every duration flag of fs given a negative value. Each
// is a bound, a hold, a pause or a length of time, none of which runs backwards; a negative
// one would end its wait at once, or never, and the run would report a verdict on that.
func refuseNegativeDurations(fs *pflag.FlagSet) error {
	var err error
	fs.Visit(func(fl *pflag.Flag) {
		if err != nil || fl.Value.Type() != "duration" {
			return
		}
		if d, perr := time.ParseDuration(fl.Value.String()); perr == nil && d < 0 {
			err = fmt.Errorf("--%s %s: give a duration of zero or more, e.g. --%s %s (the default)", fl.Name, d, fl.Name, fl.DefValue)
		}
	})
	return err
}
