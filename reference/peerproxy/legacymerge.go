package peerproxy

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/skewcheck/skewcheck/reference/internal/authn"
)

// forwardMerged sends r to the local apiserver, asking for JSON (the one encoding the proxy
// edits; every discovery client reads it), and passes its answer on with add applied to
// the body when it is a 200. Any other answer (401, 403, 5xx) is the apiserver's, as is.
func (p *Proxy) forwardMerged(w http.ResponseWriter, r *http.Request, u *authn.User, add func([]byte) ([]byte, error)) {
	r.Header.Set("Accept", "application/json")
	// Without the client's Accept-Encoding the transport asks for gzip itself and hands the
	// body over decompressed: the proxy never edits compressed bytes.
	r.Header.Del("Accept-Encoding")
	p.forwardThen(w, r, u, []string{p.cfg.APIServer}, false, func(resp *http.Response) error {
		if resp.StatusCode != http.StatusOK {
			return nil
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if b, err = add(b); err != nil {
			return err
		}
		resp.Body = io.NopCloser(bytes.NewReader(b))
		resp.ContentLength = int64(len(b))
		resp.Header.Set("Content-Length", strconv.Itoa(len(b)))
		resp.Header.Set("Content-Type", "application/json")
		return nil
	})
}

// addResources adds extra to an APIResourceList, each unless one of its name is there.
func addResources(body []byte, extra []metav1.APIResource) ([]byte, error) {
	var list metav1.APIResourceList
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for _, r := range list.APIResources {
		have[r.Name] = true
	}
	for _, r := range extra {
		if !have[r.Name] {
			list.APIResources = append(list.APIResources, r)
		}
	}
	return json.Marshal(list)
}

// addGroupVersions adds extra to an APIGroupList: a group it lacks whole, a version to a
// group it has. The local preferred version of a group stays preferred.
func addGroupVersions(body []byte, extra []metav1.APIGroup) ([]byte, error) {
	var list metav1.APIGroupList
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, err
	}
	for _, g := range extra {
		i := -1
		for j := range list.Groups {
			if list.Groups[j].Name == g.Name {
				i = j
			}
		}
		if i < 0 {
			list.Groups = append(list.Groups, g)
			continue
		}
		for _, v := range g.Versions {
			if !hasVersion(list.Groups[i].Versions, v.Version) {
				list.Groups[i].Versions = append(list.Groups[i].Versions, v)
			}
		}
	}
	return json.Marshal(list)
}
