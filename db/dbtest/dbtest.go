// Package dbtest gives tests a fresh, migrated PostgreSQL database.
//
// The server is TEST_DATABASE_URL when set, else the local server at
// 127.0.0.1:5432 (user postgres) when it answers within a second, else an
// embedded PostgreSQL started once per test binary. The migrations are applied
// once to a template database named after a hash of the migration files; each
// New copies it with CREATE DATABASE … TEMPLATE, which takes milliseconds.
package dbtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/yorozu-bot/yorozu/db"
)

const (
	localURL     = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	localTimeout = time.Second
	setupTimeout = 2 * time.Minute
	// templateLockKey serialises template creation across test binaries.
	templateLockKey int64 = 0x796f726f7a757474
)

type server struct {
	adminURL string // a maintenance database on the chosen server
	admin    *pgxpool.Pool
	template string
	embedded *db.Embedded
	embedDir string
}

var (
	once   sync.Once
	srv    *server
	srvErr error
)

// New returns a pool on a fresh, migrated database that is dropped when the
// test ends. It fails the test, never skips it, when no server is available.
func New(t testing.TB) *pgxpool.Pool {
	t.Helper()
	u := URL(t)
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	pool, err := db.Open(ctx, u)
	if err != nil {
		t.Fatalf("dbtest: open test database: %v", err)
	}
	t.Cleanup(pool.Close) // runs before URL's cleanup drops the database
	return pool
}

// EmptyURL creates a fresh database with no migrations applied, for tests of
// the migrations themselves, and returns its connection string. The database
// is dropped when the test ends.
func EmptyURL(t testing.TB) string {
	t.Helper()
	return create(t, "template0")
}

// URL creates a fresh, migrated database and returns its connection string,
// for end-to-end tests that hand DATABASE_URL to the app. The database is
// dropped when the test ends.
func URL(t testing.TB) string {
	t.Helper()
	return create(t, "")
}

func create(t testing.TB, template string) string {
	t.Helper()
	return createWith(t, template, "")
}

// createWith is create with extra CREATE DATABASE options.
func createWith(t testing.TB, template, options string) string {
	t.Helper()
	once.Do(func() { srv, srvErr = setup() })
	if srvErr != nil {
		t.Fatalf("dbtest: no PostgreSQL for tests: %v", srvErr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()

	if template == "" {
		template = srv.template
	}
	name := "yorozu_test_" + randomHex(8)
	if _, err := srv.admin.Exec(ctx, "CREATE DATABASE "+quote(name)+" TEMPLATE "+quote(template)+options); err != nil {
		t.Fatalf("dbtest: create database %s from %s: %v", name, template, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := srv.admin.Exec(ctx, "DROP DATABASE IF EXISTS "+quote(name)+" WITH (FORCE)"); err != nil {
			t.Errorf("dbtest: drop database %s: %v", name, err)
		}
	})
	return withDatabase(srv.adminURL, name)
}

// Main runs the tests of a package and then stops the embedded server if one
// was started. Call it from TestMain; without it an embedded server outlives
// the test binary.
func Main(m *testing.M) {
	code := m.Run()
	if srv != nil {
		srv.admin.Close()
		if srv.embedded != nil {
			if err := srv.embedded.Stop(); err != nil {
				fmt.Fprintln(os.Stderr, "dbtest:", err)
			}
			_ = os.RemoveAll(srv.embedDir)
		}
	}
	os.Exit(code)
}

func setup() (*server, error) {
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	s := &server{}
	var tried []string
	switch env := os.Getenv("TEST_DATABASE_URL"); {
	case env != "":
		s.adminURL = env
	default:
		lctx, lcancel := context.WithTimeout(ctx, localTimeout)
		conn, err := pgx.Connect(lctx, localURL)
		lcancel()
		if err == nil {
			_ = conn.Close(ctx)
			s.adminURL = localURL
			break
		}
		tried = append(tried, fmt.Sprintf("local server 127.0.0.1:5432: %v", err))
		dir, err := os.MkdirTemp("", "yorozu-dbtest-")
		if err != nil {
			return nil, err
		}
		e, err := db.StartEmbedded(ctx, dir)
		if err != nil {
			_ = os.RemoveAll(dir)
			tried = append(tried, fmt.Sprintf("embedded: %v", err))
			return nil, fmt.Errorf("TEST_DATABASE_URL is unset; %s; "+
				"set TEST_DATABASE_URL=postgres://user@host:port/postgres (a role allowed to CREATE DATABASE)",
				strings.Join(tried, "; "))
		}
		s.embedded, s.embedDir, s.adminURL = e, dir, e.URL()
	}

	admin, err := db.Open(ctx, s.adminURL)
	if err != nil {
		s.stopEmbedded()
		return nil, err
	}
	s.admin = admin
	if s.template, err = ensureTemplate(ctx, admin, s.adminURL); err != nil {
		admin.Close()
		s.stopEmbedded()
		return nil, err
	}
	return s, nil
}

func (s *server) stopEmbedded() {
	if s.embedded != nil {
		_ = s.embedded.Stop()
		_ = os.RemoveAll(s.embedDir)
	}
}

// ensureTemplate returns the name of a migrated template database, building
// it unless an earlier run (or a parallel test binary) already did.
func ensureTemplate(ctx context.Context, admin *pgxpool.Pool, adminURL string) (string, error) {
	ms, err := db.Migrations()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, m := range ms {
		fmt.Fprintf(h, "%d %s\n%s\n", m.Version, m.Name, m.SQL)
	}
	name := "yorozu_tmpl_" + hex.EncodeToString(h.Sum(nil))[:16]

	conn, err := admin.Acquire(ctx)
	if err != nil {
		return "", err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", templateLockKey); err != nil {
		return "", fmt.Errorf("lock template %s: %w", name, err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", templateLockKey) //nolint:errcheck

	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return "", fmt.Errorf("look up template %s: %w", name, err)
	}
	if exists {
		return name, nil
	}

	// Build under a temporary name so a crash never leaves a half-migrated template.
	building := name + "_building"
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+quote(building)+" WITH (FORCE)"); err != nil {
		return "", fmt.Errorf("drop %s: %w", building, err)
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+quote(building)); err != nil {
		return "", fmt.Errorf("create %s: %w", building, err)
	}
	pool, err := db.Open(ctx, withDatabase(adminURL, building))
	if err != nil {
		return "", err
	}
	err = db.Migrate(ctx, pool)
	pool.Close()
	if err != nil {
		return "", fmt.Errorf("migrate template %s: %w", building, err)
	}
	if _, err := conn.Exec(ctx, "ALTER DATABASE "+quote(building)+" RENAME TO "+quote(name)); err != nil {
		return "", fmt.Errorf("rename %s: %w", building, err)
	}
	return name, nil
}

// withDatabase returns connection string u pointed at database name.
func withDatabase(u, name string) string {
	if pu, err := url.Parse(u); err == nil && (pu.Scheme == "postgres" || pu.Scheme == "postgresql") {
		pu.Path = "/" + name
		return pu.String()
	}
	return u + " dbname=" + name // keyword/value form: the last dbname wins
}

func quote(ident string) string { return pgx.Identifier{ident}.Sanitize() }

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(errors.New("dbtest: no randomness: " + err.Error()))
	}
	return hex.EncodeToString(b)
}
