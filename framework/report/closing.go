package report

import "fmt"

// ClosingLine returns "N passed, N failed, N skipped" over all tests of the run. The
// format is a contract: CI jobs grep for this line on its own, so it carries no prefix,
// no colour and no trailing punctuation, and the caller prints it alone on a line.
func ClosingLine(c *Conformance) string {
	passed, failed, skipped := c.Counts()
	return fmt.Sprintf("%d passed, %d failed, %d skipped", passed, failed, skipped)
}
