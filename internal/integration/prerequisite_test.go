package integration

import (
	"errors"
	"strings"
	"testing"
)

func TestPrerequisiteDecide(t *testing.T) {
	missing := errors.New("no nft on PATH")
	cases := []struct {
		name       string
		short      bool
		env        map[string]string
		present    error
		asked      bool   // whether present may be asked at all
		skip, fail string // substrings; "" means none
	}{
		{"present runs", false, nil, nil, true, "", ""},
		{"missing fails, saying what to install and how to skip", false, nil, missing, true, "", "apt-get install nftables"},
		{"the failure names the skip variable", false, nil, missing, true, "", "SKEWCHECK_SKIP_NFT=1"},
		{"the failure says what is missing", false, nil, missing, true, "", "no nft on PATH"},
		{"-short skips without looking", true, nil, missing, false, "-short", ""},
		{"its own variable skips without looking", false, map[string]string{"SKEWCHECK_SKIP_NFT": "1"}, missing, false, "SKEWCHECK_SKIP_NFT=1", ""},
		{"the integration variable skips without looking", false, map[string]string{SkipEnv: "1"}, missing, false, SkipEnv + "=1", ""},
		{"another prerequisite's variable does not skip", false, map[string]string{"SKEWCHECK_SKIP_DOCKER": "1"}, missing, true, "", "SKEWCHECK_SKIP_NFT=1"},
		{"a variable set to anything but 1 does not skip", false, map[string]string{"SKEWCHECK_SKIP_NFT": "0"}, missing, true, "", "no nft"},
	}
	for _, c := range cases {
		asked := false
		skip, fail := nft.decide(c.short, func(k string) string { return c.env[k] }, func() error { asked = true; return c.present })
		if (c.skip == "") != (skip == "") || !strings.Contains(skip, c.skip) || (c.fail == "") != (fail == "") || !strings.Contains(fail, c.fail) {
			t.Errorf("%s: skip %q fail %q, want skip containing %q and fail containing %q", c.name, skip, fail, c.skip, c.fail)
		}
		if asked && !c.asked {
			t.Errorf("%s: looked for the prerequisite although the test is skipped", c.name)
		}
		if skip != "" && !strings.Contains(skip, nft.what) {
			t.Errorf("%s: the skip reason %q does not say what the test needs", c.name, skip)
		}
	}
}

// Every prerequisite can be skipped knowingly, each by a variable of its own.
func TestPrerequisitesHaveTheirOwnSkipVariables(t *testing.T) {
	seen := map[string]bool{SkipEnv: true}
	for _, p := range []prerequisite{docker, kind, nft} {
		if !strings.HasPrefix(p.skipEnv, "SKEWCHECK_SKIP_") || seen[p.skipEnv] || p.what == "" || p.install == "" {
			t.Errorf("prerequisite %+v: want its own SKEWCHECK_SKIP_* variable, what it is and how to install it", p)
		}
		seen[p.skipEnv] = true
	}
}
