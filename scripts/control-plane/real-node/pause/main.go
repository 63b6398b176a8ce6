// The real node's pause container: it holds a pod's namespaces until the runtime stops it.
// As PID 1 of its namespace it reaps orphans, and it exits at once on SIGINT or SIGTERM
// (PID 1 gets no default signal handlers, so it must ask for them).
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	signals := make(chan os.Signal, 8)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for received := range signals {
		if received != syscall.SIGCHLD {
			os.Exit(0)
		}
		for {
			pid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
}
