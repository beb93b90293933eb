// Package logtail shows the end of a helper process's log in an error message.
package logtail

import (
	"os"
	"strings"
)

// Tail returns the last n lines of a log, each indented, for an error message that
// shows why a process failed; a log that cannot be read says so instead.
func Tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "    (no log: " + err.Error() + ")\n"
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "    " + strings.Join(lines, "\n    ") + "\n"
}
