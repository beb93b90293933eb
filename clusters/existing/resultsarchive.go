package existing

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// The archive holds the results directory's files (the reports, JUnit, e2e.log, the exit
// code) and the failure evidence under artifacts/, whose size a run does not bound: a
// failed test writes what each server serves, every probe's response and log tails. It
// goes through the pod's log, which the kubelet rotates past its containerLogMaxSize (10
// MiB by default) and of which kubectl logs reads only the newest file, so the evidence is
// bounded and what does not fit is listed instead of carried.
const (
	artifactsDir = "artifacts"
	// artifactsBound bounds the evidence's bytes before compression. Evidence is JSON and
	// text, which gzip shrinks several times; even incompressible, its framed base64 stays
	// under 3 MiB of log, a third of the kubelet's default rotation.
	artifactsBound = 2 << 20
	// artifactsLeftOut lists the evidence past the bound, in the archive's artifacts/.
	artifactsLeftOut = "left-out.txt"
)

// untarBound bounds one file written from an archive, and untarTotalBound all of them: the
// archive came through a log the kubelet rotates at 10 MiB, but gzip can make much of
// little. Variables, for tests.
var untarBound, untarTotalBound int64 = 64 << 20, 256 << 20

// tarGz packs the regular files of dir (not an earlier archive, sonobuoy's done file or a
// file being written, named with a leading dot) and of dir/artifacts, up to artifactsBound
// of it, into a gzipped tar. Other directories are not results.
func tarGz(dir string) ([]byte, error) {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		n := e.Name()
		if !e.Type().IsRegular() || n == resultsArchive || n == "done" || strings.HasPrefix(n, ".") {
			continue
		}
		if err := addFile(tw, filepath.Join(dir, n), n); err != nil {
			return nil, err
		}
	}
	if err := addArtifacts(tw, dir); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// addArtifacts packs dir/artifacts' files in lexical order (the evidence of one test
// together) while they fit in artifactsBound, and lists the rest in artifacts/left-out.txt.
func addArtifacts(tw *tar.Writer, dir string) error {
	root := filepath.Join(dir, artifactsDir)
	var total int64
	var leftOut []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root && os.IsNotExist(err) {
				return fs.SkipAll // no test failed
			}
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if total+info.Size() > artifactsBound {
			leftOut = append(leftOut, fmt.Sprintf("%s (%d bytes)", filepath.ToSlash(rel), info.Size()))
			return nil
		}
		total += info.Size()
		return addFile(tw, p, filepath.ToSlash(rel))
	})
	if err != nil || len(leftOut) == 0 {
		return err
	}
	note := fmt.Sprintf("The evidence carried with the results is bounded to %d bytes; these files were left out (they stay in the pod's results directory while the pod lasts):\n%s\n",
		artifactsBound, strings.Join(leftOut, "\n"))
	return addBytes(tw, artifactsDir+"/"+artifactsLeftOut, []byte(note))
}

func addFile(tw *tar.Writer, file, name string) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	return addBytes(tw, name, b)
}

// addBytes writes a regular file's entry. The type is said outright: sonobuoy's
// aggregator (tarball.DecodeTarball) writes only entries typed TypeReg.
func addBytes(tw *tar.Writer, name string, b []byte) error {
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(b))}); err != nil {
		return err
	}
	_, err := tw.Write(b)
	return err
}

// untarGz writes the archive's regular files under dir, each at its own path inside dir,
// and returns the top-level names written (a directory's with a trailing slash).
func untarGz(archive []byte, dir string) ([]string, error) {
	gz, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		return nil, fmt.Errorf("the results archive: %w", err)
	}
	tr := tar.NewReader(gz)
	var names []string
	var total int64
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return names, nil
		}
		if err != nil {
			return nil, fmt.Errorf("the results archive: %w", err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		name := path.Clean(h.Name)
		if !filepath.IsLocal(name) {
			return nil, fmt.Errorf("the results archive has an entry %q outside its directory: refused", h.Name)
		}
		// Refused whole rather than written cut short: a report read as whole that is not.
		if total += h.Size; h.Size > untarBound || total > untarTotalBound {
			return nil, fmt.Errorf("the results archive's entry %s is %d bytes, and an entry may be %d and all of them %d: refused, as no run's results are that large: is the image's skewcheck this one?",
				name, h.Size, untarBound, untarTotalBound)
		}
		if err := writeEntry(tr, filepath.Join(dir, filepath.FromSlash(name))); err != nil {
			return nil, err
		}
		top, below, _ := strings.Cut(name, "/")
		if below != "" {
			top += "/"
		}
		if !slices.Contains(names, top) {
			names = append(names, top)
		}
	}
}

func writeEntry(r io.Reader, file string) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, r) // the entry's size, which untarGz bounded
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
