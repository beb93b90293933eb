package gateway

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// connector is how the gateway reaches the servers of one cluster, as itself: one
// http.Transport, so each server gets one HTTP/2 connection that every client's requests
// share (many clients converge on a few TCP connections).
//
// A frozen server is found by bounds on what cannot take long on a live one: dialing,
// the TLS handshake, and HTTP/2 pings (a connection that has received nothing for
// timeout is pinged; no answer within timeout closes it, failing its streams). The
// response itself is not bounded, so a long LIST from a live server still succeeds.
type connector struct {
	key       string // the cluster name and a fingerprint of the client config
	transport *http.Transport
	rt        http.RoundTripper // transport, with the bearer token if the gateway uses one
}

// resolvedClientConfig is a ClientConfig with its files read.
type resolvedClientConfig struct {
	ca, cert, key []byte
	token         string
	serverName    string
	insecure      bool
}

func (r resolvedClientConfig) fingerprint() string {
	h := sha256.New()
	for _, b := range [][]byte{r.ca, r.cert, r.key, []byte(r.token), []byte(r.serverName), fmt.Appendf(nil, "%v", r.insecure)} {
		fmt.Fprintf(h, "%d:", len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// pemFrom returns inline data, or the file's contents (relative to dir).
func pemFrom(data []byte, file, dir string) ([]byte, error) {
	if len(data) > 0 || file == "" {
		return data, nil
	}
	if !filepath.IsAbs(file) {
		file = filepath.Join(dir, file)
	}
	return os.ReadFile(file)
}

func resolveClientConfig(c ClientConfig, dir string) (resolvedClientConfig, []Problem) {
	r := resolvedClientConfig{token: c.BearerToken, serverName: c.ServerName, insecure: c.Insecure}
	var problems []Problem
	read := func(field string, data []byte, file string) []byte {
		b, err := pemFrom(data, file, dir)
		if err != nil {
			problems = append(problems, Problem{Field: field, Message: err.Error() + "; give a readable PEM file (relative paths are relative to the document's directory)"})
		}
		return b
	}
	r.ca = read("spec.clientConfig.caFile", c.CAData, c.CAFile)
	r.cert = read("spec.clientConfig.certFile", c.CertData, c.CertFile)
	r.key = read("spec.clientConfig.keyFile", c.KeyData, c.KeyFile)
	if len(problems) > 0 {
		return r, problems
	}
	if len(r.ca) > 0 && !x509.NewCertPool().AppendCertsFromPEM(r.ca) {
		problems = append(problems, Problem{Field: "spec.clientConfig.caData", Message: "holds no PEM certificate; give the CA that signs the apiservers' serving certificates"})
	}
	if len(r.cert) > 0 {
		if _, err := tls.X509KeyPair(r.cert, r.key); err != nil {
			problems = append(problems, Problem{Field: "spec.clientConfig.certData", Message: "with keyData is not a usable client certificate: " + err.Error()})
		}
	}
	return r, problems
}

// newConnector builds the transport. Resolved configs were checked by resolveClientConfig.
func newConnector(key string, c resolvedClientConfig, timeout time.Duration) *connector {
	tc := &tls.Config{ServerName: c.serverName, InsecureSkipVerify: c.insecure}
	if len(c.ca) > 0 {
		tc.RootCAs = x509.NewCertPool()
		tc.RootCAs.AppendCertsFromPEM(c.ca)
	}
	if len(c.cert) > 0 {
		cert, _ := tls.X509KeyPair(c.cert, c.key)
		tc.Certificates = []tls.Certificate{cert}
	}
	t := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}).DialContext,
		TLSClientConfig:     tc,
		TLSHandshakeTimeout: timeout,
		ForceAttemptHTTP2:   true,
		MaxIdleConnsPerHost: 16, // HTTP/1.1 only: upgrade requests each take a connection of their own
		IdleConnTimeout:     90 * time.Second,
		HTTP2: &http.HTTP2Config{
			SendPingTimeout:  timeout,
			PingTimeout:      timeout,
			WriteByteTimeout: 2 * timeout,
		},
	}
	c2 := &connector{key: key, transport: t, rt: t}
	if c.token != "" {
		c2.rt = &bearer{token: c.token, next: t}
	}
	return c2
}

// bearer adds the gateway's own bearer token to requests the gateway makes as itself.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b *bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}
