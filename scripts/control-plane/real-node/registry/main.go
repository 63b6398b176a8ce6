// The real node's image registry: go-containerregistry's in-memory registry on a loopback
// address. It prints "listening on <host:port>" once it accepts connections (so a caller
// can ask for port 0 and read the port back) and stops on SIGINT or SIGTERM.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
)

func main() {
	address := flag.String("address", "127.0.0.1:0", "host:port to listen on")
	verbose := flag.Bool("verbose", false, "log every request to stderr")
	flag.Parse()

	listener, err := net.Listen("tcp", *address)
	if err != nil {
		log.Fatalf("listen %s: %v", *address, err)
	}
	logger := log.New(io.Discard, "", 0)
	if *verbose {
		logger = log.New(os.Stderr, "registry: ", log.LstdFlags)
	}
	server := &http.Server{
		Handler:           registry.New(registry.Logger(logger)),
		ReadHeaderTimeout: 10 * time.Second,
	}
	fmt.Printf("listening on %s\n", listener.Addr())

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		<-stop
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = server.Shutdown(ctx)
	}()
	if err := server.Serve(listener); err != nil && err != http.ErrServerClosed {
		log.Fatalf("serve: %v", err)
	}
}
