package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/yorozu-bot/yorozu/health"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// errUsage marks a command line that could not be understood; main exits 2.
var errUsage = errors.New("usage")

func exitCode(err error) int {
	if errors.Is(err, errUsage) {
		return 2
	}
	return 1
}

const usage = `yorozu — a Discord bot answering with a local LLM (Ollama)

Usage:
  yorozu [serve]    run the bot, the HTTP server and the jobs (default)
  yorozu migrate    apply database migrations and exit
  yorozu doctor     check the setup and print a checklist of what to fix
                    (changes nothing, posts nothing; exit status 1 on ❌)
  yorozu jobs run NAME
                    run one scheduled job (weather, tips) once, now
  yorozu admin set-password
                    set the admin page password from standard input
  yorozu healthcheck
                    ask the running yorozu (HTTP_ADDR) for /readyz; exit 0 when ready
  yorozu version    print the version and exit
  yorozu help       show this help

Every setting comes from the environment (DISCORD_TOKEN, DATABASE_URL,
OLLAMA_HOST, DEFAULT_MODEL, …); see docs/ja/settings.md for the full table.
`

// run is the whole program behind main: end-to-end tests call it with their
// own arguments, environment and output.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cmd, rest := "serve", args
	if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		cmd, rest = "help", nil
	} else if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, rest = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		if done, err := parseFlags("serve", "run the bot, the HTTP server and the jobs", rest, stdout, stderr); done || err != nil {
			return err
		}
		return serve(ctx, getenv, stdout, stderr)
	case "migrate":
		if done, err := parseFlags("migrate", "apply database migrations and exit", rest, stdout, stderr); done || err != nil {
			return err
		}
		return migrate(ctx, getenv, stdout, stderr)
	case "doctor":
		if done, err := parseFlags("doctor", health.DoctorSummary, rest, stdout, stderr); done || err != nil {
			return err
		}
		return health.Doctor(ctx, health.DoctorOptions{Getenv: getenv, Stdout: stdout, Version: version, Settings: settingDefs, ModelPool: modelPool})
	case "version":
		if done, err := parseFlags("version", "print the version and exit", rest, stdout, stderr); done || err != nil {
			return err
		}
		fmt.Fprintln(stdout, "yorozu", versionString())
		return nil
	case "jobs":
		return jobs(ctx, rest, getenv, stdout, stderr)
	case "healthcheck":
		if done, err := parseFlags("healthcheck", "ask the yorozu serving HTTP_ADDR on this host for /readyz and exit 0 only when it is ready (for a container health check)", rest, stdout, stderr); done || err != nil {
			return err
		}
		cfg, _, err := setup(getenv, stderr)
		if err != nil {
			return err
		}
		return health.Probe(ctx, cfg.HTTPAddr, stdout)
	case "admin":
		return adminCmd(ctx, rest, getenv, os.Stdin, stdout, stderr)
	case "help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("unknown command %q: %w", cmd, errUsage)
	}
}

// jobs handles "jobs run NAME".
func jobs(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("jobs", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: yorozu jobs run NAME\n\nRun one scheduled job once, now, and exit non-zero if it failed.\nJobs: weather (needs WEATHER_WEBHOOK_URL or WEATHER_CHANNEL_ID), tips (needs TIPS_WEBHOOK_URL or TIPS_CHANNEL_ID), kb_sync, api_log_prune (deletes model call logs older than API_LOG_RETENTION), message_retention (when MESSAGE_RETENTION is set), channel_log_retention (deletes channel log messages older than CHANNEL_LOG_RETENTION), purge (removes the rows of deleted conversations and forgotten summaries), offer_prune (deletes offers older than 7 days), disaster (needs QUAKE_WEBHOOK_URL or QUAKE_CHANNEL_ID).\n")
	}
	// The flag package would print the usage itself, on stderr, for -h too.
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			fs.Usage()
			return nil
		}
		fs.SetOutput(stderr)
		fs.Usage()
		return fmt.Errorf("%s: %w", err, errUsage)
	}
	if fs.NArg() != 2 || fs.Arg(0) != "run" {
		fs.Usage()
		return fmt.Errorf("jobs: want \"run NAME\", got %q: %w", fs.Args(), errUsage)
	}
	return runJob(ctx, fs.Arg(1), getenv, stdout, stderr)
}

// parseFlags handles -h for a command that takes no flags. done is true when
// help was printed and the command should not run.
func parseFlags(name, summary string, args []string, stdout, stderr io.Writer) (done bool, err error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: yorozu %s\n\n%s. Settings come from the environment; see docs/ja/settings.md.\n", name, summary)
	}
	fs.SetOutput(io.Discard) // as in jobs
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			fs.Usage()
			return true, nil
		}
		fs.SetOutput(stderr)
		fs.Usage()
		return true, fmt.Errorf("%s: %w", err, errUsage)
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return true, fmt.Errorf("%s takes no arguments, got %q: %w", name, fs.Args(), errUsage)
	}
	return false, nil
}

// versionString is the build's version plus its VCS revision when known.
func versionString() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return version
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev == "" {
		return version
	}
	return fmt.Sprintf("%s (%s%s)", version, rev, dirty)
}
