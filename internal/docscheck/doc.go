// Package docscheck holds the tests that keep the Markdown pages renderable and their
// links true: every relative link names a file that exists, every #anchor a heading of
// its page, every table has its delimiter row and as many cells in each row as in its
// header; and the pages' claims about what the Makefile and the workflow run, how many at
// a time and how long it takes are held to the Makefile, the workflow, cmd/skewcheck's
// cli_test.go and the dated entries of docs/measurements.md. It has no code of its own:
// the pages are the subject.
package docscheck
