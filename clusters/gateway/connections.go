package gateway

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// connections counts the established TCP connections that the processes of the
// gateway's process group hold to each address: what HTTP/2 convergence is about (many
// clients, few connections per upstream). It reads /proc: the group's sockets by inode,
// then the kernel's TCP tables.
func (g *Gateway) connections(addrs []string) (map[string]int, error) {
	inodes, err := groupSockets(g.pid)
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, a := range addrs {
		want[a] = true
	}
	out := map[string]int{}
	for _, a := range addrs {
		out[a] = 0
	}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Scan() // header
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 || fields[3] != "01" || !inodes[fields[9]] { // 01: ESTABLISHED
				continue
			}
			if remote := decodeAddr(fields[2]); want[remote] {
				out[remote]++
			}
		}
		f.Close()
	}
	return out, nil
}

// groupSockets are the socket inodes of every process whose process group is pgid.
func groupSockets(pgid int) (map[string]bool, error) {
	procs, err := filepath.Glob("/proc/[0-9]*")
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, p := range procs {
		stat, err := os.ReadFile(filepath.Join(p, "stat"))
		if err != nil {
			continue
		}
		// Fields after the command (which may hold spaces) closed by ')': state ppid pgrp.
		rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
		f := strings.Fields(rest)
		if len(f) < 3 || f[2] != strconv.Itoa(pgid) {
			continue
		}
		fds, _ := os.ReadDir(filepath.Join(p, "fd"))
		for _, fd := range fds {
			link, err := os.Readlink(filepath.Join(p, "fd", fd.Name()))
			if inode, ok := strings.CutPrefix(link, "socket:["); err == nil && ok {
				out[strings.TrimSuffix(inode, "]")] = true
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no sockets found for process group %d: is the gateway running?", pgid)
	}
	return out, nil
}

// decodeAddr turns the kernel's "0100007F:1F90" (IPv4, little-endian) or 32 hex digits
// (IPv6, four little-endian words) into host:port.
func decodeAddr(s string) string {
	host, port, ok := strings.Cut(s, ":")
	if !ok {
		return ""
	}
	b, err := hex.DecodeString(host)
	if err != nil {
		return ""
	}
	for i := 0; i+4 <= len(b); i += 4 {
		b[i], b[i+1], b[i+2], b[i+3] = b[i+3], b[i+2], b[i+1], b[i]
	}
	p, _ := strconv.ParseUint(port, 16, 16)
	ip := net.IP(b)
	if v4 := ip.To4(); v4 != nil {
		ip = v4
	}
	return net.JoinHostPort(ip.String(), strconv.Itoa(int(p)))
}
