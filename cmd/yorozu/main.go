// Command yorozu runs the yorozu Discord bot: the Discord adapter, the
// admin HTTP server and the scheduled jobs, on PostgreSQL and Ollama.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	_ "time/tzdata" // TIMEZONE works on machines without a zoneinfo database
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "yorozu:", err)
		os.Exit(exitCode(err))
	}
}
