package gateway

import "testing"

func TestDecodeAddr(t *testing.T) {
	for in, want := range map[string]string{
		"0B4D4D7F:1923":                         "127.77.77.11:6435",
		"0000000000000000FFFF00000B4D4D7F:1923": "127.77.77.11:6435",
	} {
		if got := decodeAddr(in); got != want {
			t.Errorf("decodeAddr(%s) = %s, want %s", in, got, want)
		}
	}
}
