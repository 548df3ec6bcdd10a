package db

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	embeddedpostgres "github.com/fergusstrange/embedded-postgres"
)

// geteuid is swapped in tests to exercise the root check as any user.
var geteuid = os.Geteuid

// ErrEmbeddedAsRoot is returned by StartEmbedded when run as root: initdb
// refuses to run as root, so the embedded database cannot be created.
var ErrEmbeddedAsRoot = errors.New("埋め込み PostgreSQL は root では動きません（initdb が root を拒否します） / " +
	"embedded PostgreSQL cannot run as root (initdb refuses to run as root) → " +
	"DATABASE_URL に既存の PostgreSQL を設定するか、一般ユーザーで実行してください / " +
	"set DATABASE_URL to an existing PostgreSQL server, or run yorozu as a normal user")

// installedRoots are where distributions put PostgreSQL: a root holds bin/pg_ctl.
var installedRoots = []string{
	"/usr/lib/postgresql/*", // Debian, Ubuntu
	"/usr/pgsql-*",          // RHEL, Fedora (PGDG)
}

// embeddedVersions maps a major version to the library's version constant.
var embeddedVersions = map[int]embeddedpostgres.PostgresVersion{
	18: embeddedpostgres.V18, 17: embeddedpostgres.V17, 16: embeddedpostgres.V16,
	15: embeddedpostgres.V15, 14: embeddedpostgres.V14, 13: embeddedpostgres.V13,
	12: embeddedpostgres.V12,
}

const (
	embeddedUser     = "yorozu"
	embeddedPassword = "yorozu"
	embeddedDatabase = "yorozu"
)

// Embedded is a PostgreSQL server run by this process for installs without
// DATABASE_URL.
type Embedded struct {
	pg      *embeddedpostgres.EmbeddedPostgres
	port    uint32
	log     *os.File
	logPath string
}

// EmbeddedLogFile is the file under the data directory that receives
// everything the embedded server and its tools (initdb, pg_ctl) print.
const EmbeddedLogFile = "postgres.log"

// StartEmbedded starts PostgreSQL with its data under dataDir/postgres,
// listening on a free port on 127.0.0.1. A new data directory gets the newest
// PostgreSQL installed on the system (e.g. /usr/lib/postgresql/NN), else the
// library's download (PostgreSQL 18, its default); an existing one keeps its major version.
// Everything the server, initdb and pg_ctl print is appended to
// dataDir/postgres.log (LogPath), never to the terminal. It fails fast as root.
func StartEmbedded(ctx context.Context, dataDir string) (*Embedded, error) {
	if geteuid() == 0 {
		return nil, ErrEmbeddedAsRoot
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("start embedded postgres: %w", err)
	}
	dataDir, err := filepath.Abs(dataDir)
	if err != nil {
		return nil, fmt.Errorf("start embedded postgres: %w", err)
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("start embedded postgres: %w", err)
	}
	logPath := filepath.Join(dataDir, EmbeddedLogFile)
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("start embedded postgres: open its log: %w", err)
	}
	started := false
	defer func() {
		if !started {
			logFile.Close()
		}
	}()
	port, err := freePort()
	if err != nil {
		return nil, fmt.Errorf("start embedded postgres: find a free port: %w", err)
	}
	timeout := time.Minute
	if dl, ok := ctx.Deadline(); ok {
		timeout = time.Until(dl)
	}

	cfg := embeddedpostgres.DefaultConfig().
		Port(port).
		Username(embeddedUser).
		Password(embeddedPassword).
		Database(embeddedDatabase).
		DataPath(filepath.Join(dataDir, "postgres")).
		// Emptied at every start: keep it apart from the data.
		RuntimePath(filepath.Join(dataDir, "postgres-runtime")).
		Encoding("UTF8").
		Locale("C").
		StartTimeout(timeout).
		// TCP only: the packaged default socket directory (/var/run/postgresql)
		// is usually not writable by the user running yorozu.
		// The server's own log joins initdb's and pg_ctl's in the log file
		// through its collector (its stderr is the library's temporary file).
		StartParameters(map[string]string{
			"unix_socket_directories": "", "listen_addresses": "127.0.0.1",
			"logging_collector": "on", "log_directory": dataDir, "log_filename": EmbeddedLogFile,
			"log_file_mode": "0600",
		}).
		Logger(logFile)
	root, version, err := chooseBinaries(filepath.Join(dataDir, "postgres"))
	if err != nil {
		return nil, fmt.Errorf("start embedded postgres in %s: %w", dataDir, err)
	}
	cfg = cfg.Version(version)
	if root != "" {
		cfg = cfg.BinariesPath(root)
	}
	pg := embeddedpostgres.NewDatabase(cfg)
	if err := pg.Start(); err != nil {
		return nil, fmt.Errorf("start embedded postgres in %s (log: %s): %w", dataDir, logPath, err)
	}
	started = true
	return &Embedded{pg: pg, port: port, log: logFile, logPath: logPath}, nil
}

// DescribeEmbedded says what StartEmbedded would do with dataDir, without
// doing it or changing anything: which PostgreSQL it would run (an existing
// data directory's version, installed binaries or the download) and whether
// the data directory exists yet. Its error is StartEmbedded's for what can be
// known without starting: ErrEmbeddedAsRoot, an unusable data directory.
func DescribeEmbedded(dataDir string) (string, error) {
	if geteuid() == 0 {
		return "", ErrEmbeddedAsRoot
	}
	dataDir, err := filepath.Abs(dataDir)
	if err != nil {
		return "", fmt.Errorf("embedded postgres: %w", err)
	}
	dataPath := filepath.Join(dataDir, "postgres")
	root, version, err := chooseBinaries(dataPath)
	if err != nil {
		return "", fmt.Errorf("embedded postgres in %s: %w", dataDir, err)
	}
	binaries := "PostgreSQL " + strings.SplitN(string(version), ".", 2)[0] + " downloaded on first start"
	if root != "" {
		binaries = "the PostgreSQL in " + root
	}
	if _, err := os.Stat(filepath.Join(dataPath, "PG_VERSION")); err == nil {
		return fmt.Sprintf("starts the existing database in %s with %s", dataPath, binaries), nil
	}
	return fmt.Sprintf("creates a new database in %s with %s", dataPath, binaries), nil
}

// LogPath is the file that holds the server's output.
func (e *Embedded) LogPath() string { return e.logPath }

// URL is the connection string of the embedded server's database.
func (e *Embedded) URL() string {
	return fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d/%s?sslmode=disable",
		embeddedUser, embeddedPassword, e.port, embeddedDatabase)
}

// Stop shuts the server down, waiting for it to exit.
func (e *Embedded) Stop() error {
	err := e.pg.Stop()
	e.log.Close()
	if err != nil {
		return fmt.Errorf("stop embedded postgres on port %d: %w", e.port, err)
	}
	return nil
}

// chooseBinaries picks the PostgreSQL to run on the data directory dataPath:
// installed binaries (root) when found, else the library's download (root "").
// An existing data directory pins the major version, because the library
// wipes a data directory whose PG_VERSION does not match the binaries.
func chooseBinaries(dataPath string) (root string, version embeddedpostgres.PostgresVersion, err error) {
	installed := installedPostgres()
	b, err := os.ReadFile(filepath.Join(dataPath, "PG_VERSION"))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if len(installed) > 0 {
			return installed[0].root, embeddedVersions[installed[0].major], nil
		}
		return "", embeddedpostgres.V18, nil
	case err != nil:
		return "", "", fmt.Errorf("read data directory version: %w", err)
	}
	major, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || embeddedVersions[major] == "" {
		return "", "", fmt.Errorf("data directory %s holds PostgreSQL %q, which embedded mode cannot run; "+
			"start it with that version's binaries and set DATABASE_URL", dataPath, strings.TrimSpace(string(b)))
	}
	for _, in := range installed {
		if in.major == major {
			return in.root, embeddedVersions[major], nil
		}
	}
	return "", embeddedVersions[major], nil
}

type installation struct {
	root  string // holds bin/pg_ctl
	major int
}

// installedPostgres lists installed PostgreSQL versions the library supports,
// newest first. The binaries are used in place: packaged builds locate their
// share directory relative to the real binary, so no symlink farm is needed.
func installedPostgres() []installation {
	var all []installation
	for _, pattern := range installedRoots {
		dirs, _ := filepath.Glob(pattern)
		for _, d := range dirs {
			m, err := strconv.Atoi(trimNonDigits(filepath.Base(d)))
			if err != nil || embeddedVersions[m] == "" {
				continue
			}
			if st, err := os.Stat(filepath.Join(d, "bin", "pg_ctl")); err != nil || st.IsDir() {
				continue
			}
			if _, err := os.Stat(filepath.Join(d, "bin", "initdb")); err != nil {
				continue
			}
			all = append(all, installation{d, m})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].major > all[j].major })
	return all
}

func trimNonDigits(s string) string {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	return s[i:]
}

func freePort() (uint32, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return uint32(l.Addr().(*net.TCPAddr).Port), nil
}
