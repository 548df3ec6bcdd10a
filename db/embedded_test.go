package db_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
)

// childDirEnv makes TestStartEmbedded run the real start in a re-executed
// copy of this test binary (as uid nobody when the parent is root).
const childDirEnv = "YOROZU_TEST_EMBEDDED_DIR"

func TestStartEmbedded(t *testing.T) {
	if dir := os.Getenv(childDirEnv); dir != "" {
		startEmbeddedAndQuery(t, dir)
		return
	}
	if os.Geteuid() != 0 {
		startEmbeddedAndQuery(t, t.TempDir())
		return
	}
	if _, err := exec.LookPath("setpriv"); err != nil {
		t.Fatal("running as root without setpriv (util-linux): cannot start embedded PostgreSQL as another user")
	}
	// Root: initdb refuses to run, so re-run this test as nobody from a copy
	// of the test binary that nobody can read, in a directory nobody owns.
	const nobody = 65534
	dir, err := os.MkdirTemp("", "yorozu-embedded-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "db.test")
	if err := copyFile(self, bin); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(data, nobody, nobody); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
		bin, "-test.run=^TestStartEmbedded$", "-test.v")
	cmd.Dir = data
	cmd.Env = append(os.Environ(), childDirEnv+"="+data, "HOME="+data, "TMPDIR="+data)
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("--- PASS: TestStartEmbedded")) {
		t.Fatalf("embedded PostgreSQL as nobody: %v\n%s", err, out)
	}
}

func startEmbeddedAndQuery(t *testing.T, dir string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// Nothing may reach the terminal: catch what would go to stdout.
	terminal, err := os.CreateTemp(dir, "stdout")
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = terminal
	e, err := db.StartEmbedded(ctx, dir)
	os.Stdout = stdout
	if err != nil {
		t.Fatalf("StartEmbedded: %v", err)
	}
	stopped := false
	defer func() {
		if !stopped {
			_ = e.Stop()
		}
	}()
	if !strings.HasPrefix(e.URL(), "postgres://") {
		t.Errorf("URL() = %q", e.URL())
	}
	if e.LogPath() != filepath.Join(dir, db.EmbeddedLogFile) {
		t.Errorf("LogPath() = %q, want it under the data directory", e.LogPath())
	}
	// initdb's output and the server's own log land in the file.
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, _ := os.ReadFile(e.LogPath())
		if bytes.Contains(b, []byte("The files belonging to this database system")) &&
			bytes.Contains(b, []byte("ready to accept connections")) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("log file lacks initdb's or the server's output:\n%s", b)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if b, _ := os.ReadFile(terminal.Name()); len(b) > 0 {
		t.Errorf("embedded PostgreSQL printed on stdout:\n%s", b)
	}
	pool, err := db.Open(ctx, e.URL())
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	if _, err := db.UpsertSession(ctx, pool, db.SessionParams{Space: "web", Key: "web:admin"}); err != nil {
		t.Fatal(err)
	}
	pool.Close()
	if err := e.Stop(); err != nil {
		t.Fatal(err)
	}
	stopped = true
	if _, err := os.Stat(filepath.Join(dir, "postgres", "PG_VERSION")); err != nil {
		t.Errorf("no data directory under %s/postgres: %v", dir, err)
	}

	// A second start reuses the data.
	e2, err := db.StartEmbedded(ctx, dir)
	if err != nil {
		t.Fatalf("restart: %v", err)
	}
	defer e2.Stop()
	pool, err = db.Open(ctx, e2.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := db.SessionByKey(ctx, pool, "web:admin"); err != nil {
		t.Errorf("session written before the restart: %v", err)
	}
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
