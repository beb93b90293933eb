package campaign

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/skewcheck/skewcheck/clusters/binaries"
	"github.com/skewcheck/skewcheck/clusters/local"
)

// runChild runs skewcheck (self) with args, every line of its output prefixed so a
// campaign's log says which pair and run it comes from. Ctrl-C reaches the child as an
// interrupt, and it gets a minute to heal faults and delete its cluster. When the child
// fails, defect is the known upstream defect it named as the cause, if any (skewcheck
// names one only beside the error it caused: a 1.33 or 1.34 server's nil-pointer crash,
// say): a line that is exactly one of local.KnownDefects, for one of the pair's versions.
// Anything else, a line that merely begins like one included, leaves the failure a failure.
func runChild(ctx context.Context, log io.Writer, self, prefix string, versions, args []string) (defect string, err error) {
	c := exec.CommandContext(ctx, self, args...)
	c.Cancel = func() error { return c.Process.Signal(os.Interrupt) }
	c.WaitDelay = time.Minute
	out, err := c.StdoutPipe()
	if err != nil {
		return "", err
	}
	c.Stderr = c.Stdout
	if err := c.Start(); err != nil {
		return "", fmt.Errorf("starting %s %s: %w", self, args[0], err)
	}
	why := prefixLines(log, out, prefix)
	if err := c.Wait(); err != nil {
		for _, line := range why {
			if d, ok := local.NamedDefect(line, versions...); ok {
				defect = d.Text
			}
		}
		if len(why) > 0 {
			return defect, fmt.Errorf("skewcheck %s: %w: %s", args[0], err, strings.Join(why, "; "))
		}
		return defect, fmt.Errorf("skewcheck %s: %w", args[0], err)
	}
	return "", nil
}

// prefixLines copies a child's output line by line behind prefix, and returns the lines
// that say why it failed (its "error:" line, and a known upstream defect it named), so
// the index can say so without anyone reading the whole log.
func prefixLines(w io.Writer, r io.Reader, prefix string) (why []string) {
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 64*1024), 1024*1024)
	for s.Scan() {
		line := s.Text()
		fmt.Fprintln(w, prefix+line)
		if strings.HasPrefix(line, "error: ") || strings.HasPrefix(line, local.KnownDefectPrefix) {
			why = append(why, strings.TrimPrefix(line, "error: "))
		}
	}
	return why
}

// childBinaryFlags passes where binaries come from on to the child runs.
func childBinaryFlags(b binaries.Options) []string {
	var out []string
	if b.CacheDir != "" {
		out = append(out, "--cache-dir", b.CacheDir)
	}
	if b.Source != "" {
		out = append(out, "--source", b.Source)
	}
	for k, v := range b.Paths {
		out = append(out, "--binary", k+"="+v)
	}
	return out
}
