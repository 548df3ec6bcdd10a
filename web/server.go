package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Check is one readiness condition; a nil error means ready.
type Check struct {
	Name string
	Fn   func(ctx context.Context) error
}

// Options configures the server.
type Options struct {
	// Addr is the listen address (HTTP_ADDR); ":0" picks a free port.
	Addr string
	// Checks decide /readyz, run in order with a 2 s deadline each.
	Checks []Check
	// Metrics serves /metrics (the Prometheus registry); nil answers 404.
	Metrics http.Handler
	Logger  *slog.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time

	// Pool holds admin logins and everything the API reads and writes.
	Pool *pgxpool.Pool
	// MetricsPublic serves /metrics without the admin login (METRICS_PUBLIC).
	MetricsPublic bool
	// Pages are the admin page's HTML routes and assets, added to the route
	// table (and so to its middleware chain) as they are.
	Pages []Route
	// Deps are the parts the API hands work to; a nil part answers 503 on
	// the routes that need it.
	Deps Deps
	// TrustedProxies may set X-Forwarded-For and X-Forwarded-Proto
	// (TRUSTED_PROXIES); none by default, so every peer is the client.
	TrustedProxies []netip.Prefix

	// The timeouts a client must keep to; one slower is cut off, so it
	// cannot hold a connection. Zero means the default given.

	// ReadHeaderTimeout bounds reading a request's headers (default 10s).
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds reading a whole request, body included (default
	// 30s).
	ReadTimeout time.Duration
	// UploadTimeout replaces ReadTimeout for a logged-in upload: a chat
	// message with images, an import (default 10m).
	UploadTimeout time.Duration
	// WriteTimeout bounds writing an answer, from the end of its request's
	// headers (default 2m); the chat stream has it for each event instead.
	WriteTimeout time.Duration
	// IdleTimeout closes a kept-alive connection that sends no new request
	// for this long (default 2m).
	IdleTimeout time.Duration
}

// Server is the HTTP side of yorozu.
type Server struct {
	opts     Options
	srv      *http.Server
	throttle *throttle
	bcrypt   chan struct{} // a slot per password comparison running
	lanes    lanes

	mu   sync.Mutex
	ln   net.Listener
	done chan struct{}
}

// New builds a server; Start makes it listen.
func New(opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	for _, d := range []struct {
		v   *time.Duration
		def time.Duration
	}{
		{&opts.ReadHeaderTimeout, 10 * time.Second},
		{&opts.ReadTimeout, 30 * time.Second},
		{&opts.UploadTimeout, 10 * time.Minute},
		{&opts.WriteTimeout, 2 * time.Minute},
		{&opts.IdleTimeout, 2 * time.Minute},
	} {
		if *d.v <= 0 {
			*d.v = d.def
		}
	}
	s := &Server{opts: opts, throttle: newThrottle(loginFailures, loginWindow), bcrypt: make(chan struct{}, bcryptSlots)}
	s.srv = &http.Server{
		Handler:           s.mux(),
		ReadHeaderTimeout: opts.ReadHeaderTimeout,
		ReadTimeout:       opts.ReadTimeout,
		WriteTimeout:      opts.WriteTimeout,
		IdleTimeout:       opts.IdleTimeout,
		ErrorLog:          slog.NewLogLogger(opts.Logger.Handler(), slog.LevelWarn),
	}
	return s
}

// Start listens on Addr and serves in the background. It returns once the
// socket is bound, so Addr reports the real port.
func (s *Server) Start(ctx context.Context) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", s.opts.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s (HTTP_ADDR): %w", s.opts.Addr, err)
	}
	s.mu.Lock()
	s.ln, s.done = ln, make(chan struct{})
	s.mu.Unlock()
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.opts.Logger.Error("http server stopped", "err", err)
		}
	}()
	s.opts.Logger.Info("http listening", "addr", ln.Addr().String())
	return nil
}

// Addr is the address the server listens on, once started.
func (s *Server) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln == nil {
		return ""
	}
	return s.ln.Addr().String()
}

// Stop shuts the server down gracefully, waiting for requests in flight
// until ctx ends. It is safe to call more than once.
func (s *Server) Stop(ctx context.Context) error {
	s.mu.Lock()
	done := s.done
	s.mu.Unlock()
	if done == nil {
		return nil
	}
	err := s.srv.Shutdown(ctx)
	<-done
	return err
}
