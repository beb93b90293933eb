package images

import (
	"slices"
	"testing"
)

func TestParseLdd(t *testing.T) {
	out := []byte(`	linux-vdso.so.1 (0x00007ffd)
	libnftables.so.1 => /lib/x86_64-linux-gnu/libnftables.so.1 (0x00007f39)
	libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f39)
	/lib64/ld-linux-x86-64.so.2 (0x00007f39)
`)
	got, err := parseLdd(out)
	want := []string{"/lib/x86_64-linux-gnu/libnftables.so.1", "/lib/x86_64-linux-gnu/libc.so.6", "/lib64/ld-linux-x86-64.so.2"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("parseLdd = %v, %v; want %v", got, err, want)
	}
	if _, err := parseLdd([]byte("\tlibfoo.so.1 => not found\n")); err == nil {
		t.Error("a missing library must be an error")
	}
}
