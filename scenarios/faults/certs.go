package faults

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/skewcheck/skewcheck/clusters/node"
	"github.com/skewcheck/skewcheck/clusters/pki"
)

// Certificate faults replace files a server or its proxy reads while traffic flows, as a
// certificate manager (or a mistake) does on disk, and put the original files back on
// heal: what reloads, what keeps failing, and for how long.

// servedWithin bounds the wait for a server to serve a certificate written to its
// --tls-cert-file: kube-apiserver watches the file (fsnotify) and re-reads it every
// minute anyway (k8s.io/apiserver v0.36.3 and v0.35.4
// pkg/server/dynamiccertificates/dynamic_serving_content.go:142-155, with FileRefreshDuration
// 1 min, dynamic_cafile_content.go:39), so past this it is not reloading. A variable for
// the tests of a server that never reloads.
var servedWithin = 90 * time.Second

// certFault replaces files on disk and restores them. Inject saves every file first; when
// servedAt is set it returns only once the server there serves the new certificate, and
// then runs cut (its peers' open connections ended, so they handshake again); Heal waits
// the same way for the original, so the time to recover includes the server's reload.
type certFault struct {
	name, what string
	files      []string
	replace    func() error
	servedAt   string
	serving    string // the certificate file served at servedAt
	cut        func()
	saved      map[string]savedFile
	cleanup    func()
}

func (f *certFault) Name() string        { return f.name }
func (f *certFault) Description() string { return f.what }

func (f *certFault) Inject(ctx context.Context) error {
	f.saved = map[string]savedFile{}
	for _, p := range f.files {
		b, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("saving %s before replacing it: %w", p, err)
		}
		st, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("saving %s before replacing it: %w", p, err)
		}
		f.saved[p] = savedFile{b, st.Mode().Perm()}
	}
	// Inject that fails is not healed (faults.Inject): put the files back here.
	if err := f.replace(); err != nil {
		return errors.Join(err, f.undo())
	}
	if f.servedAt != "" {
		if err := waitServed(ctx, f.servedAt, f.serving); err != nil {
			return errors.Join(err, f.undo())
		}
	}
	if f.cut != nil {
		f.cut()
	}
	return nil
}

func (f *certFault) Heal(ctx context.Context) error {
	if err := f.undo(); err != nil {
		return err
	}
	if f.servedAt != "" {
		return waitServed(ctx, f.servedAt, f.serving)
	}
	return nil
}

// undo restores the files and removes what replace left elsewhere (an unrelated CA's key).
func (f *certFault) undo() error {
	if f.cleanup != nil {
		defer f.cleanup()
	}
	return f.restore()
}

// restore puts the saved files back, each atomically (a temporary file renamed over it),
// in the order they were saved: a key before its certificate, as pki writes them.
func (f *certFault) restore() error {
	for _, p := range f.files {
		sf, ok := f.saved[p]
		if !ok {
			continue
		}
		tmp := filepath.Join(filepath.Dir(p), "."+filepath.Base(p)+".restore")
		if err := os.WriteFile(tmp, sf.data, sf.mode); err != nil {
			return fmt.Errorf("restoring %s: %w", p, err)
		}
		if err := os.Rename(tmp, p); err != nil {
			return fmt.Errorf("restoring %s: %w", p, err)
		}
	}
	return nil
}

// savedFile is a file's content and mode as it was before the fault.
type savedFile struct {
	data []byte
	mode os.FileMode
}

// waitServed waits until the server at addr presents the certificate in certFile.
func waitServed(ctx context.Context, addr, certFile string) error {
	want, err := firstCertDER(certFile)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(servedWithin)
	var got []byte
	for {
		if got, err = servedCertDER(ctx, addr); err == nil && bytes.Equal(got, want) {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			why := "it still serves another certificate"
			if err != nil {
				why = err.Error()
			}
			return fmt.Errorf("the server at %s did not serve %s within %v (%s): does it reload its --tls-cert-file?", addr, certFile, servedWithin, why)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// servedCertDER is the leaf certificate the server at addr presents, unverified: an
// expired one is what is being looked for.
func servedCertDER(ctx context.Context, addr string) ([]byte, error) {
	d := tls.Dialer{NetDialer: &net.Dialer{Timeout: 2 * time.Second}, Config: &tls.Config{InsecureSkipVerify: true}}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	certs := c.(*tls.Conn).ConnectionState().PeerCertificates
	if len(certs) == 0 {
		return nil, fmt.Errorf("%s presented no certificate", addr)
	}
	return certs[0].Raw, nil
}

func firstCertDER(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode(b)
	if block == nil {
		return nil, fmt.Errorf("%s holds no PEM certificate", path)
	}
	return block.Bytes, nil
}

// RotateServing re-issues the faulted server's serving certificate from the CA that
// issued it: a routine rotation, which nobody may notice.
func RotateServing(server string, c node.CertFiles) Fault {
	return &certFault{name: "rotate-serving", files: pairFiles(c.Serving), servedAt: c.ServingAt, serving: c.Serving.CertFile,
		what:    server + "'s serving certificate (" + c.Serving.CertFile + ") re-issued by the same CA on disk, waited for until served; original restored on heal",
		replace: func() error { return pki.Reissue(c.ServingCA, c.Serving, false) }}
}

// ExpiredServing replaces the faulted server's serving certificate by one of the same CA
// that expired an hour ago and, once the server serves it, cuts its peers' open
// connections into it (its peer path, when it has one), so they must handshake again: a
// warm connection would carry on with the certificate it verified before. Its peers
// cannot verify it: a proxy must answer 503 for what only it serves, never 404.
func ExpiredServing(server string, c node.CertFiles, path *node.PeerPath) Fault {
	f := &certFault{name: "expired-serving", files: pairFiles(c.Serving), servedAt: c.ServingAt, serving: c.Serving.CertFile,
		replace: func() error { return pki.Reissue(c.ServingCA, c.Serving, true) }}
	f.what = server + "'s serving certificate replaced on disk by one of the same CA that expired an hour ago, waited for until served"
	if path != nil {
		f.cut = func() { path.Proxy.Stop(); path.Proxy.Start() }
		f.what += ", then its peers' open connections into it cut once (peer path " + path.Address + ")"
	} else {
		f.what += " (no peer path: its peers' open connections stay)"
	}
	f.what += "; original restored on heal, waited for until served"
	return f
}

// RotateProxyClient re-issues the entry's proxy client certificate from the CA its peers
// trust for it (--requestheader-client-ca-file): a routine rotation nobody may notice.
func RotateProxyClient(entry string, c node.CertFiles) Fault {
	return &certFault{name: "rotate-proxy-client", files: pairFiles(c.ProxyClient),
		what:    entry + "'s proxy client certificate (" + c.ProxyClient.CertFile + ") re-issued by the same CA on disk; original restored on heal",
		replace: func() error { return pki.Reissue(c.ProxyClientCA, c.ProxyClient, false) }}
}

// PeerCAReplaced writes an unrelated CA over the entry's --peer-ca-file: a proxy that
// reads it again can verify no peer until heal puts the original back; one that read it
// once at start goes on as before, and would go on trusting a CA taken out of service.
func PeerCAReplaced(entry string, c node.CertFiles) Fault {
	f := &certFault{name: "peer-ca-replaced", files: []string{c.PeerCA},
		what: entry + "'s --peer-ca-file (" + c.PeerCA + ") replaced by an unrelated CA; original restored on heal"}
	f.replace = func() error {
		dir, err := os.MkdirTemp("", "skewcheck-unrelated-ca-")
		if err != nil {
			return err
		}
		f.cleanup = func() { os.RemoveAll(dir) }
		ca := pki.Pair{CertFile: filepath.Join(dir, "ca.crt"), KeyFile: filepath.Join(dir, "ca.key")}
		if err := pki.NewCA("skewcheck-unrelated-ca", ca); err != nil {
			return err
		}
		b, err := os.ReadFile(ca.CertFile)
		if err != nil {
			return err
		}
		tmp := c.PeerCA + ".unrelated"
		if err := os.WriteFile(tmp, b, 0o644); err != nil {
			return err
		}
		return os.Rename(tmp, c.PeerCA)
	}
	return f
}

// pairFiles lists a pair's files, the key first, as they are written and restored.
func pairFiles(p pki.Pair) []string { return []string{p.KeyFile, p.CertFile} }
