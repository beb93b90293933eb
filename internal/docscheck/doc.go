// Package docscheck holds the tests that keep the Markdown pages renderable and their
// links true: every relative link names a file that exists, every #anchor a heading of
// its page, every table has its delimiter row and as many cells in each row as in its
// header. It has no code of its own: the pages are the subject.
package docscheck
