// Package wire turns the bytes a fuzzer makes into the request net/http's server would
// hand a handler, for the references' fuzz targets: each sends its proxy only what a real
// client could get past the server.
package wire

import (
	"bufio"
	"net/http"
	"net/textproto"
	"strings"

	"golang.org/x/net/http/httpguts"
)

// Request is the request a client's bytes make (method, target, header lines separated
// by CRLF) to host, as net/http's server reads them, or false for what the server refuses
// itself (a second Host, a malformed line, an invalid header name or value).
func Request(method, target, header, host string) (*http.Request, bool) {
	for _, line := range strings.Split(header, "\n") {
		if strings.HasPrefix(strings.ToLower(line), "host:") {
			return nil, false // a second Host: the server answers 400
		}
	}
	raw := method + " " + target + " HTTP/1.1\r\nHost: " + host + "\r\n" + header + "\r\n\r\n"
	r, err := http.ReadRequest(bufio.NewReader(strings.NewReader(raw)))
	if err != nil {
		return nil, false
	}
	for k, vs := range r.Header {
		if !httpguts.ValidHeaderFieldName(k) {
			return nil, false
		}
		for _, v := range vs {
			if !httpguts.ValidHeaderFieldValue(v) {
				return nil, false
			}
		}
	}
	r.RemoteAddr = "192.0.2.1:40000"
	return r, true
}

// ConnectionNames says whether h's Connection header names a header starting with one of
// prefixes, read as net/http/httputil removes what Connection names.
func ConnectionNames(h http.Header, prefixes ...string) bool {
	for _, v := range h.Values("Connection") {
		for _, t := range strings.Split(v, ",") {
			c := http.CanonicalHeaderKey(textproto.TrimString(t))
			for _, p := range prefixes {
				if strings.HasPrefix(c, http.CanonicalHeaderKey(p)) {
					return true
				}
			}
		}
	}
	return false
}
