package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/binaries"
	"github.com/skewcheck/skewcheck/clusters/local"
	"github.com/skewcheck/skewcheck/clusters/registry"
)

func clusterCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "cluster", Short: "Create, list, inspect and delete local skewed control planes"}
	cmd.AddCommand(createCommand(), listCommand(), deleteCommand(), skewCommand(), superviseCommand())
	return cmd
}

// plan is what create hands to the detached supervisor, through the cluster's directory.
type plan struct {
	Servers     []clusters.ServerSpec `json:"servers"`
	Port        int                   `json:"port"`
	Binaries    binaries.Options      `json:"binaries"`
	Reference   string                `json:"reference,omitempty"`
	Flaw        string                `json:"flaw,omitempty"`
	PeerTimeout time.Duration         `json:"peerTimeout,omitempty"`
}

func planPath(name string) string { return filepath.Join(registry.ClusterDir(name), "plan.json") }

func createCommand() *cobra.Command {
	var name string
	var sf serverFlags
	var bin binaries.Options
	var wait time.Duration
	var ref referenceFlags
	var provider string
	var nodeImages []string
	cmd := &cobra.Command{
		Use:   "create",
		Short: "Start a local control plane of real kube-apiservers, one per version, that keeps running after this command",
		Example: "  skewcheck cluster create --name skew --versions v1.35.4,v1.36.3\n" +
			"  skewcheck cluster create --name off --versions v1.35.4,v1.36.3 --no-peer-proxy 1",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := registry.CheckName(name); err != nil {
				return err
			}
			if err := checkProvider(provider); err != nil {
				return err
			}
			if provider == providerKind {
				if ref.name != "" {
					return fmt.Errorf("--reference is not supported with --provider kind yet")
				}
				return createKind(cmd.Context(), name, sf, nodeImages, bin, wait)
			}
			if len(nodeImages) > 0 {
				return fmt.Errorf("--node-image makes kind nodes: it goes with --provider kind")
			}
			specs, err := sf.specs()
			if err != nil {
				return err
			}
			if err := ref.apply(specs); err != nil {
				return err
			}
			if err := local.CheckPrivilege(); err != nil {
				return err
			}
			if err := claimName(name); err != nil {
				return err
			}
			b, _ := json.Marshal(plan{Servers: specs, Port: sf.port, Binaries: bin, Reference: ref.name, Flaw: ref.flaw, PeerTimeout: ref.peerTimeout})
			if err := os.WriteFile(planPath(name), b, 0o600); err != nil {
				registry.Remove(name)
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			ctx, cancel := context.WithTimeout(ctx, wait)
			defer cancel()
			rec, err := startSupervisor(ctx, name)
			if err != nil {
				return err
			}
			printCreated(rec)
			return nil
		},
	}
	cmd.Flags().StringVar(&name, "name", "skewcheck", "cluster name")
	cmd.Flags().DurationVar(&wait, "wait", 20*time.Minute, "how long to wait for the cluster, including building binaries that are not cached")
	cmd.Flags().StringVar(&provider, "provider", providerLocal, "what the cluster is made of: local (apiserver processes on this machine) or kind (one kind control-plane node per version, in Docker; node images are built offline, see skewcheck images node)")
	addNodeImageFlag(cmd, &nodeImages)
	sf.add(cmd)
	ref.add(cmd)
	addBinaryFlags(cmd, &bin)
	return cmd
}

// claimName makes the cluster's directory, refusing a name a live cluster has and
// cleaning up after one whose supervisor died.
func claimName(name string) error {
	dir := registry.ClusterDir(name)
	if _, err := os.Stat(dir); err == nil {
		// A kind cluster has no supervisor: its directory is not a dead local cluster's.
		if rec, err := registry.Read(name); err == nil && rec.Provider == providerKind {
			return fmt.Errorf("a kind cluster named %q already exists: delete it with `skewcheck cluster delete --name %s`, or choose another --name", name, name)
		}
		if pid := registry.Supervisor(name); pid != 0 {
			return fmt.Errorf("a cluster named %q already exists (supervisor pid %d): delete it with `skewcheck cluster delete --name %s`, or choose another --name", name, pid, name)
		}
		fmt.Fprintf(os.Stderr, "removing the remains of an earlier cluster %q whose supervisor is gone\n", name)
		if err := registry.Remove(name); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("making the cluster directory %s: %w", dir, err)
	}
	return nil
}

// startSupervisor runs `skewcheck cluster supervise` in its own session, so the cluster
// outlives this command, and relays its progress until the cluster converged or failed.
func startSupervisor(ctx context.Context, name string) (registry.Record, error) {
	self, err := os.Executable()
	if err != nil {
		return registry.Record{}, err
	}
	logf, err := os.Create(registry.SupervisorLog(name))
	if err != nil {
		return registry.Record{}, err
	}
	defer logf.Close()
	sup := exec.Command(self, "cluster", "supervise", "--name", name)
	sup.Stdout, sup.Stderr = logf, logf
	sup.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := sup.Start(); err != nil {
		registry.Remove(name)
		return registry.Record{}, fmt.Errorf("starting the cluster supervisor: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- sup.Wait() }()
	follow, _ := os.Open(registry.SupervisorLog(name))
	defer follow.Close()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		io.Copy(os.Stderr, follow)
		if rec, err := registry.Read(name); err == nil {
			return rec, nil
		}
		select {
		case err := <-exited:
			io.Copy(os.Stderr, follow)
			registry.Remove(name)
			return registry.Record{}, fmt.Errorf("cluster %q was not created (supervisor exited: %v); nothing is left running", name, err)
		case <-ctx.Done():
			sup.Process.Signal(syscall.SIGTERM)
			<-exited
			registry.Remove(name)
			return registry.Record{}, fmt.Errorf("cluster %q was not created: %v; everything it started was stopped", name, context.Cause(ctx))
		case <-tick.C:
		}
	}
}

func printCreated(r registry.Record) {
	fmt.Printf("cluster %s is ready: every server /readyz in %v, converged in %v\n", r.Name, r.Ready.Round(time.Millisecond), r.Converged.Round(time.Millisecond))
	fmt.Printf("kubeconfig: %s\n", r.Kubeconfig)
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "SERVER\tVERSION\tURL\tPEER PROXY\tADMIN CONTEXT\tUSER CONTEXT")
	for _, s := range r.Servers {
		fmt.Fprintf(w, "%s\t%s\t%s\t%v\t%s\t%s\n", s.Name, s.Version, s.URL, s.PeerProxy, s.Admin, s.User)
	}
	for _, s := range r.Servers {
		if s.Proxy != nil {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", "reference in front of "+s.Name, "", s.Proxy.URL, "reference", s.Proxy.Admin, s.Proxy.User)
		}
	}
	w.Flush()
	fmt.Printf("try: kubectl --kubeconfig %s --context %s get --raw /version\n", r.Kubeconfig, r.Servers[0].Admin)
	fmt.Printf("delete it with: skewcheck cluster delete --name %s\n", r.Name)
}

// superviseCommand is the detached process that owns a named cluster: embedded etcd lives
// in it and every apiserver is its child, so SIGTERM to it tears everything down.
func superviseCommand() *cobra.Command {
	var name string
	cmd := &cobra.Command{
		Use:    "supervise",
		Hidden: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if err := registry.SetSupervisor(name, os.Getpid()); err != nil {
				return err
			}
			var p plan
			b, err := os.ReadFile(planPath(name))
			if err != nil {
				return err
			}
			if err := json.Unmarshal(b, &p); err != nil {
				return err
			}
			c, err := local.New(ctx, local.Config{
				Name: name, Servers: p.Servers, Port: p.Port, Binaries: p.Binaries,
				Dir: filepath.Join(registry.ClusterDir(name), "run"), Progress: os.Stdout,
			})
			if err != nil {
				return err
			}
			defer c.Delete()
			rec := recordOf(c)
			if p.Reference == "peerproxy" {
				fmt.Println("starting a reference peer proxy in front of every apiserver")
				ref := referenceFlags{name: p.Reference, flaw: p.Flaw, peerTimeout: p.PeerTimeout}
				t, stop, err := ref.front(ctx, c)
				if err != nil {
					return err
				}
				defer stop()
				if err := addProxyContexts(c, t, &rec); err != nil {
					return err
				}
			}
			if err := registry.Write(rec); err != nil {
				return err
			}
			<-ctx.Done()
			fmt.Println("stopping: apiservers first, then etcd")
			return c.Delete()
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "cluster name")
	return cmd
}

func recordOf(c *local.Cluster) registry.Record {
	r := registry.Record{
		Name: c.Name, Supervisor: os.Getpid(), Kubeconfig: c.Kubeconfig, Created: time.Now(),
		Ready: c.Timings.Ready, Converged: c.Timings.Converged,
	}
	for _, s := range c.Servers {
		r.Servers = append(r.Servers, registry.Server{
			Name: s.Name, Version: s.Version, URL: s.URL(), Hostname: s.Hostname, Pid: s.Pid(),
			PeerProxy: s.PeerProxy(), Log: s.Log(), AuditLog: s.AuditLog(),
			Admin: c.ContextName(s, local.Admin), User: c.ContextName(s, local.Unprivileged),
		})
	}
	return r
}

func listCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the local clusters on this machine",
		RunE: func(*cobra.Command, []string) error {
			names, err := registry.Names()
			if err != nil {
				return err
			}
			orphans := kindWithoutRecord(names)
			if len(names) == 0 && len(orphans) == 0 {
				fmt.Println("no clusters; create one with: skewcheck cluster create --name NAME --versions v1.35.4,v1.36.3")
				return nil
			}
			w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "NAME\tPROVIDER\tSTATUS\tVERSIONS\tKUBECONFIG")
			for _, n := range names {
				status, versions, kubeconfig := "starting", "", ""
				if registry.Supervisor(n) == 0 {
					status = "dead (delete it)"
				}
				if r, err := registry.Read(n); err == nil && r.Provider == providerKind {
					status = kindStatus(n)
				}
				if r, err := registry.Read(n); err == nil {
					if status == "starting" {
						status = "running"
					}
					for i, s := range r.Servers {
						if i > 0 {
							versions += ","
						}
						versions += s.Version
					}
					kubeconfig = r.Kubeconfig
				}
				r, _ := registry.Read(n)
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", n, providerOf(r), status, versions, kubeconfig)
			}
			for _, n := range orphans {
				fmt.Fprintf(w, "%s\t%s\t%s\t\t\n", n, providerKind, "nodes without a record (delete it)")
			}
			return w.Flush()
		},
	}
}

func deleteCommand() *cobra.Command {
	var name string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "delete",
		Short: "Stop a cluster (local or kind) and remove everything it made",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, err := os.Stat(registry.ClusterDir(name)); errors.Is(err, os.ErrNotExist) && kindStatus(name) == "running" {
				// kind nodes whose record is gone: still ours to remove.
				if err := deleteKind(cmd.Context(), name); err != nil {
					return err
				}
				fmt.Printf("deleted kind cluster %s\n", name)
				return nil
			}
			if _, err := os.Stat(registry.ClusterDir(name)); errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("there is no cluster named %q: `skewcheck cluster list` shows the clusters there are", name)
			}
			if r, err := registry.Read(name); err == nil && r.Provider == providerKind {
				if err := deleteKind(cmd.Context(), name); err != nil {
					return err
				}
				fmt.Printf("deleted kind cluster %s\n", name)
				return nil
			}
			if pid := registry.Supervisor(name); pid != 0 {
				syscall.Kill(pid, syscall.SIGTERM)
				deadline := time.Now().Add(timeout)
				for registry.Alive(pid) && time.Now().Before(deadline) {
					time.Sleep(100 * time.Millisecond)
				}
				if registry.Alive(pid) {
					// Its apiservers die with it (parent-death signal).
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
			if err := registry.Remove(name); err != nil {
				return err
			}
			fmt.Printf("deleted cluster %s\n", name)
			return nil
		},
	}
	cmd.Flags().StringVar(&name, "name", "skewcheck", "cluster name")
	cmd.Flags().DurationVar(&timeout, "timeout", time.Minute, "how long to wait for a graceful stop before killing")
	return cmd
}
