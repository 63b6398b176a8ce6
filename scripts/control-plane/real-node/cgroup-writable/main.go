// cgroup-writable: the OCI runtime of the real node's `cgroup-writable` runtime handler.
// It stands in for containerd 2.1's `cgroup_writable` on this node's containerd 1.6: before
// `create` runs the real runtime, it gives the container a cgroup namespace and, at
// /sys/fs/cgroup, a writable cgroup2 of its own (the container's cgroup and nothing above
// it), which systemd as PID 1 needs to start. Every other call goes to the real runtime
// unchanged.
//
//	cgroup-writable --runtime /usr/sbin/runc [runc's global flags] <command> [flags] ...
//
// On a cgroup-v2 host the runtime's own cgroup mount becomes read-write (under the cgroup
// namespace it shows only the container's cgroup). On a hybrid host (v1 controllers, the v2
// hierarchy at /sys/fs/cgroup/unified) the runtime puts the container into the v2 hierarchy
// too, at the same path as in the v1 ones; that directory is bound read-write at
// /sys/fs/cgroup. A host without a v2 hierarchy is refused: a v1 tree cannot be delegated.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

const (
	cgroupRoot    = "/sys/fs/cgroup"
	hybridUnified = "/sys/fs/cgroup/unified"
	cgroup2Magic  = 0x63677270
)

// Global flags of runc (and crun) that take a value: the command is the first other word.
var globalFlagsWithValue = map[string]bool{"--root": true, "--log": true, "--log-format": true, "--criu": true, "--rootless": true}

func main() {
	args := os.Args[1:]
	if len(args) < 2 || args[0] != "--runtime" {
		fail(errors.New("usage: cgroup-writable --runtime <path of the OCI runtime> <runtime arguments>"))
	}
	runtime, rest := args[1], args[2:]
	if command, commandArgs := splitCommand(rest); command == "create" || command == "run" {
		if err := makeCgroupWritable(bundleOf(commandArgs)); err != nil {
			fail(err)
		}
	}
	if err := syscall.Exec(runtime, append([]string{runtime}, rest...), os.Environ()); err != nil {
		fail(fmt.Errorf("running %s: %w", runtime, err))
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "cgroup-writable: %v\n", err)
	os.Exit(1)
}

func splitCommand(args []string) (string, []string) {
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if !strings.HasPrefix(arg, "-") {
			return arg, args[i+1:]
		}
		if globalFlagsWithValue[arg] {
			i++
		}
	}
	return "", nil
}

// The bundle directory of create/run: --bundle/-b, else the working directory.
func bundleOf(args []string) string {
	for i, arg := range args {
		switch {
		case (arg == "--bundle" || arg == "-b") && i+1 < len(args):
			return args[i+1]
		case strings.HasPrefix(arg, "--bundle="):
			return strings.TrimPrefix(arg, "--bundle=")
		}
	}
	return "."
}

func makeCgroupWritable(bundle string) error {
	path := filepath.Join(bundle, "config.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	// Generic JSON: every field we do not know passes through as it was.
	var spec map[string]any
	if err := json.Unmarshal(raw, &spec); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	linux, _ := spec["linux"].(map[string]any)
	if linux == nil {
		return fmt.Errorf("%s: no linux section", path)
	}
	addCgroupNamespace(linux)
	mount, err := cgroupMount(linux)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	mounts, _ := spec["mounts"].([]any)
	replaced := false
	for i, entry := range mounts {
		m, _ := entry.(map[string]any)
		if m != nil && filepath.Clean(fmt.Sprint(m["destination"])) == cgroupRoot {
			mounts[i] = mount
			replaced = true
		}
	}
	if !replaced {
		mounts = append(mounts, mount)
	}
	spec["mounts"] = mounts
	out, err := json.Marshal(spec)
	if err != nil {
		return err
	}
	return os.WriteFile(path, out, 0o600)
}

func addCgroupNamespace(linux map[string]any) {
	namespaces, _ := linux["namespaces"].([]any)
	for _, entry := range namespaces {
		if ns, _ := entry.(map[string]any); ns != nil && ns["type"] == "cgroup" {
			return
		}
	}
	linux["namespaces"] = append(namespaces, map[string]any{"type": "cgroup"})
}

func cgroupMount(linux map[string]any) (map[string]any, error) {
	options := []any{"nosuid", "noexec", "nodev", "relatime", "rw"}
	if isCgroup2(cgroupRoot) {
		return map[string]any{"destination": cgroupRoot, "type": "cgroup", "source": "cgroup", "options": options}, nil
	}
	if !isCgroup2(hybridUnified) {
		return nil, fmt.Errorf("this host has no cgroup v2 hierarchy (neither %s nor %s is cgroup2): a v1 cgroup tree cannot be given to a container safely", cgroupRoot, hybridUnified)
	}
	cgroupsPath, _ := linux["cgroupsPath"].(string)
	if !strings.HasPrefix(cgroupsPath, "/") || strings.Contains(cgroupsPath, ":") {
		return nil, fmt.Errorf("linux.cgroupsPath %q: must be an absolute cgroupfs path (the cgroupfs driver), not a systemd slice", cgroupsPath)
	}
	// The runtime joins the same path here; made now so that the bind has a source.
	own := filepath.Join(hybridUnified, filepath.Clean(cgroupsPath))
	if err := os.MkdirAll(own, 0o755); err != nil {
		return nil, err
	}
	return map[string]any{"destination": cgroupRoot, "type": "bind", "source": own, "options": append([]any{"rbind"}, options...)}, nil
}

func isCgroup2(path string) bool {
	var fs syscall.Statfs_t
	return syscall.Statfs(path, &fs) == nil && fs.Type == cgroup2Magic
}
