package existing

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// A run inside the cluster hands its results to certify through its log: a FROM scratch
// image has no tar for an exec to copy them with, and a log needs no right beyond
// pods/log. The files go between two marker lines, gzipped tar in base64.
const (
	resultsBegin = "=== skewcheck results (tar.gz, base64) ==="
	resultsEnd   = "=== end of skewcheck results ==="
	// resultsArchive is the tarball in the results directory (sonobuoy's done file names it).
	resultsArchive = "results.tar.gz"
)

// PackResults packs the regular files of dir (not below it, not an earlier archive or
// sonobuoy's done file) into dir/results.tar.gz and writes them to log between the markers.
// It returns the tarball's path.
func PackResults(dir string, log io.Writer) (string, error) {
	archive, err := tarGz(dir)
	if err != nil {
		return "", err
	}
	tarball := filepath.Join(dir, resultsArchive)
	if err := os.WriteFile(tarball, archive, 0o644); err != nil {
		return "", err
	}
	_, err = fmt.Fprint(log, resultsBegin+"\n"+encodeLines(archive)+resultsEnd+"\n")
	return tarball, err
}

// UnpackResults finds the results between the markers of a pod's log and writes them into
// dir, returning the names written.
func UnpackResults(log []byte, dir string) ([]string, error) {
	s := string(log)
	i := strings.LastIndex(s, resultsBegin)
	j := strings.LastIndex(s, resultsEnd)
	if i < 0 || j < i {
		return nil, fmt.Errorf("the pod's log holds no results (no %q line): the run did not finish", resultsBegin)
	}
	archive, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(s[i+len(resultsBegin):j]), ""))
	if err != nil {
		return nil, fmt.Errorf("decoding the results in the pod's log: %w", err)
	}
	gz, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(gz)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return names, nil
		}
		if err != nil {
			return nil, err
		}
		name := filepath.Base(h.Name) // never outside dir
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		_, err = io.Copy(f, io.LimitReader(tr, 64<<20))
		f.Close()
		if err != nil {
			return nil, err
		}
		names = append(names, name)
	}
}

// resultsFilter passes a log's lines on, except those between the markers: base64 would
// only clutter what a user reads.
type resultsFilter struct{ inside bool }

func (r *resultsFilter) shown(line string) bool {
	switch line {
	case resultsBegin:
		r.inside = true
		return false
	case resultsEnd:
		r.inside = false
		return false
	}
	return !r.inside
}

// encodeLines is b in base64, in lines of 76 characters, each ending in a newline.
func encodeLines(b []byte) string {
	var out strings.Builder
	for s := base64.StdEncoding.EncodeToString(b); len(s) > 0; {
		n := min(len(s), 76)
		out.WriteString(s[:n] + "\n")
		s = s[n:]
	}
	return out.String()
}

// tarGz packs the regular files of dir (not below it) into a gzipped tar.
func tarGz(dir string) ([]byte, error) {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || e.Name() == resultsArchive || e.Name() == "done" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		if err := tw.WriteHeader(&tar.Header{Name: e.Name(), Mode: 0o644, Size: int64(len(b))}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(b); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
