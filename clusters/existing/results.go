package existing

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// A run inside the cluster hands its results to certify through its log: a FROM scratch
// image has no tar for an exec to copy them with, and a log needs no right beyond
// pods/log. The container runtime merges the container's stdout and stderr into that log
// line by line, in the order it reads them, so a line of stderr (the run's closing error)
// can land between any two lines of the results on stdout. So each results line stands on
// its own: a fixed prefix, its number and the block's count, then its part of the archive
// in base64, written whole in one Write (one write(2) of less than a pipe's atomic 4096
// bytes, so it is never split either); a closing line gives the archive's length and
// sha256. The reader picks the framed lines out of whatever surrounds them and knows
// whether it has them all, unaltered.
const (
	resultsPrefix = "=== skewcheck results "
	// resultsLineData is the base64 characters a line carries: 768 bytes of the archive, a
	// multiple of 3, so only the last line has padding.
	resultsLineData = 1024
	// resultsArchive is the tarball in the results directory (sonobuoy's done file names it).
	resultsArchive = "results.tar.gz"
)

// PackResults packs the results in dir (resultsarchive.go says which) into
// dir/results.tar.gz and writes them to log as a framed block. It returns the tarball's
// path.
func PackResults(dir string, log io.Writer) (string, error) {
	archive, err := tarGz(dir)
	if err != nil {
		return "", err
	}
	tarball := filepath.Join(dir, resultsArchive)
	if err := os.WriteFile(tarball, archive, 0o644); err != nil {
		return "", err
	}
	return tarball, writeFramed(log, archive)
}

// writeFramed writes archive to log, one framed line per Write call:
//
//	=== skewcheck results 000001/000042 H4sIAAAAAAAA...
//	=== skewcheck results sha256 <64 hex digits> bytes 31337 lines 42
func writeFramed(log io.Writer, archive []byte) error {
	encoded := base64.StdEncoding.EncodeToString(archive)
	var chunks []string
	for s := encoded; len(s) > 0; s = s[min(len(s), resultsLineData):] {
		chunks = append(chunks, s[:min(len(s), resultsLineData)])
	}
	for i, c := range chunks {
		if _, err := log.Write(fmt.Appendf(nil, "%s%06d/%06d %s\n", resultsPrefix, i+1, len(chunks), c)); err != nil {
			return err
		}
	}
	sum := sha256.Sum256(archive)
	_, err := log.Write(fmt.Appendf(nil, "%ssha256 %x bytes %d lines %d\n", resultsPrefix, sum, len(archive), len(chunks)))
	return err
}

// UnpackResults finds the last complete results block of a pod's log, checks it, and
// writes its files into dir, returning the names written there (a directory's with a
// trailing slash).
func UnpackResults(log []byte, dir string) ([]string, error) {
	b, err := lastBlock(log)
	if err != nil {
		return nil, err
	}
	archive, err := b.archive()
	if err != nil {
		return nil, err
	}
	return untarGz(archive, dir)
}

// resultsBlock is the framed lines of one block, by number, and its closing line's figures.
type resultsBlock struct {
	parts   map[int]string
	claimed map[int]int // the count each line says its block has
	twice   []int       // numbers that came more than once
	sum     string
	size    int
	lines   int
	closed  bool
}

// lastBlock reads the framed lines out of log, ignoring every other line, into blocks that
// each end at a closing line, and returns the last closed one.
func lastBlock(log []byte) (*resultsBlock, error) {
	var last *resultsBlock
	cur := &resultsBlock{parts: map[int]string{}, claimed: map[int]int{}}
	for line := range strings.Lines(string(log)) {
		rest, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), resultsPrefix)
		if !ok {
			continue
		}
		if closing, ok := strings.CutPrefix(rest, "sha256 "); ok {
			if err := cur.close(closing); err != nil {
				return nil, err
			}
			last, cur = cur, &resultsBlock{parts: map[int]string{}, claimed: map[int]int{}}
			continue
		}
		if err := cur.add(rest); err != nil {
			return nil, err
		}
	}
	switch {
	case last != nil:
		return last, nil
	case len(cur.parts) > 0:
		return nil, fmt.Errorf("the pod's log holds %d lines of results and no closing %q line: the log was cut short (the pod killed while it wrote them): run again", len(cur.parts), resultsPrefix+"sha256")
	}
	return nil, fmt.Errorf("the pod's log holds no results (no %q line): the run did not finish; its log above says how far it got", resultsPrefix)
}

// add records a line "000007/000042 <base64>".
func (b *resultsBlock) add(rest string) error {
	numbers, data, _ := strings.Cut(rest, " ")
	i, n, ok := strings.Cut(numbers, "/")
	index, err1 := strconv.Atoi(i)
	count, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || index < 1 {
		return fmt.Errorf("a results line of the pod's log is not framed as skewcheck frames them (%.60q...): is the image's skewcheck older or newer than this one?", rest)
	}
	if _, seen := b.parts[index]; seen {
		b.twice = append(b.twice, index)
	}
	b.parts[index], b.claimed[index] = data, count
	return nil
}

// close records the closing line's "<sha256> bytes <n> lines <n>".
func (b *resultsBlock) close(closing string) error {
	f := strings.Fields(closing)
	var err1, err2 error
	if len(f) == 5 && f[1] == "bytes" && f[3] == "lines" {
		b.size, err1 = strconv.Atoi(f[2])
		b.lines, err2 = strconv.Atoi(f[4])
	}
	if len(f) != 5 || f[1] != "bytes" || f[3] != "lines" || err1 != nil || err2 != nil {
		return fmt.Errorf("the closing results line of the pod's log is not framed as skewcheck frames it (%q): is the image's skewcheck older or newer than this one?", closing)
	}
	b.sum, b.closed = f[0], true
	return nil
}

// archive joins the block's lines in order and checks them against the closing line: every
// number from 1 to its count once, and the archive of its length and sha256.
func (b *resultsBlock) archive() ([]byte, error) {
	if len(b.twice) > 0 {
		return nil, fmt.Errorf("results line %d of %d appears more than once in the pod's log: it holds the lines of two blocks mixed; run again", b.twice[0], b.lines)
	}
	var missing []int
	var encoded strings.Builder
	for i := 1; i <= b.lines; i++ {
		part, ok := b.parts[i]
		if !ok {
			missing = append(missing, i)
		}
		encoded.WriteString(part)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("of the %d results lines, the pod's log lacks %s (the kubelet rotates a log past its containerLogMaxSize, and kubectl logs reads only the newest file): run again, or with a larger containerLogMaxSize", b.lines, spans(missing))
	}
	for _, i := range slices.Sorted(maps.Keys(b.claimed)) {
		if n := b.claimed[i]; n != b.lines || i > b.lines {
			return nil, fmt.Errorf("results line %d/%d of the pod's log does not belong to the block its closing line ends, of %d lines: the log holds the lines of two blocks mixed; run again", i, n, b.lines)
		}
	}
	archive, err := base64.StdEncoding.DecodeString(encoded.String())
	if err != nil {
		return nil, fmt.Errorf("decoding the %d results lines of the pod's log: %w", b.lines, err)
	}
	if sum := sha256.Sum256(archive); len(archive) != b.size || hex.EncodeToString(sum[:]) != b.sum {
		return nil, fmt.Errorf("the results rebuilt from the pod's log are %d bytes with sha256 %x, and its closing line says %d bytes with sha256 %s: the log was altered on its way here; run again",
			len(archive), sum, b.size, b.sum)
	}
	return archive, nil
}

// spans writes sorted numbers as ranges: "3-5, 9".
func spans(ns []int) string {
	slices.Sort(ns)
	var out []string
	for i := 0; i < len(ns); {
		j := i
		for j+1 < len(ns) && ns[j+1] == ns[j]+1 {
			j++
		}
		if j > i {
			out = append(out, fmt.Sprintf("%d-%d", ns[i], ns[j]))
		} else {
			out = append(out, strconv.Itoa(ns[i]))
		}
		i = j + 1
	}
	return strings.Join(out, ", ")
}

// resultsFilter passes a log's lines on, except the results block's: base64 would only
// clutter what a user reads.
type resultsFilter struct{}

func (resultsFilter) shown(line string) bool { return !strings.HasPrefix(line, resultsPrefix) }
