package binaries

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strings"
	"time"
)

// DefaultDownloadBaseURL is where official release binaries are published.
const DefaultDownloadBaseURL = "https://dl.k8s.io/release"

// downloadRelease fetches the official release binary and its published
// sha256, and writes the binary to out only if the digest matches: a
// truncated or tampered download must never reach the cache.
func downloadRelease(ctx context.Context, r request) error {
	url := strings.TrimRight(r.downloadBaseURL, "/") + "/" + r.version + "/bin/" + runtime.GOOS + "/" + runtime.GOARCH + "/" + string(r.component)

	sum, err := httpGet(ctx, url+".sha256", r)
	if err != nil {
		return err
	}
	raw, err := io.ReadAll(io.LimitReader(sum.Body, 4096))
	sum.Body.Close()
	if err != nil {
		return fmt.Errorf("reading %s.sha256: %w", url, err)
	}
	// The file holds the hex digest, sometimes followed by a file name.
	fields := strings.Fields(string(raw))
	if len(fields) == 0 || len(fields[0]) != sha256.Size*2 {
		return fmt.Errorf("%s.sha256 does not contain a sha256 digest (got %q); check DownloadBaseURL", url, strings.TrimSpace(string(raw)))
	}
	want := strings.ToLower(fields[0])
	if _, err := hex.DecodeString(want); err != nil {
		return fmt.Errorf("%s.sha256 does not contain a sha256 digest (got %q); check DownloadBaseURL", url, fields[0])
	}

	r.progress.printf("downloading %s %s from %s", r.component, r.version, url)
	start := time.Now()
	resp, err := httpGet(ctx, url, r)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	f, err := os.OpenFile(r.out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), resp.Body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("downloading %s: %w", url, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return fmt.Errorf("downloaded %s has sha256 %s, but %s.sha256 says %s; the download is corrupt or was tampered with, nothing was installed; retry, or check DownloadBaseURL", url, got, url, want)
	}
	r.progress.printf("downloaded %s %s (%d MB, sha256 verified) in %s", r.component, r.version, n>>20, time.Since(start).Round(time.Second))
	return nil
}

// httpGet returns a response with status 200, or an error that names the URL
// and, for 404, says that the release or file does not exist there.
// downloadClient bounds everything but the body: the download is tried before a build,
// so a network that swallows packets must cost seconds, not hang the run.
var downloadClient = &http.Client{Transport: &http.Transport{
	Proxy:                 http.ProxyFromEnvironment,
	DialContext:           (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
	TLSHandshakeTimeout:   10 * time.Second,
	ResponseHeaderTimeout: 30 * time.Second,
}}

func httpGet(ctx context.Context, url string, r request) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("bad download URL %s: %w", url, err)
	}
	resp, err := downloadClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w; check the network or DownloadBaseURL", url, err)
	}
	if resp.StatusCode == http.StatusOK {
		return resp, nil
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil, fmt.Errorf("%s has no %s %s for %s/%s (GET %s: %s); check the version and DownloadBaseURL",
			r.downloadBaseURL, r.component, r.version, runtime.GOOS, runtime.GOARCH, url, resp.Status)
	}
	return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
}
