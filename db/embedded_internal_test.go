package db

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	embeddedpostgres "github.com/fergusstrange/embedded-postgres"
)

func TestStartEmbeddedRefusesRoot(t *testing.T) {
	defer func(f func() int) { geteuid = f }(geteuid)
	geteuid = func() int { return 0 }

	dir := t.TempDir()
	_, err := StartEmbedded(context.Background(), dir)
	if !errors.Is(err, ErrEmbeddedAsRoot) {
		t.Fatalf("StartEmbedded as root = %v; want ErrEmbeddedAsRoot", err)
	}
	for _, want := range []string{"root", "initdb", "DATABASE_URL", "normal user"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

func TestChooseBinariesKeepsTheDataVersion(t *testing.T) {
	defer func(r []string) { installedRoots = r }(installedRoots)
	fake := t.TempDir()
	for _, v := range []string{"15", "16"} {
		bin := filepath.Join(fake, v, "bin")
		if err := os.MkdirAll(bin, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"pg_ctl", "initdb"} {
			if err := os.WriteFile(filepath.Join(bin, f), nil, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	installedRoots = []string{filepath.Join(fake, "*")}

	tests := []struct {
		name        string
		pgVersion   string // "" = new data directory
		wantRoot    string // relative to fake; "" = download
		wantVersion embeddedpostgres.PostgresVersion
		wantErr     bool
	}{
		{"new data: newest installed", "", "16", embeddedpostgres.V16, false},
		{"existing 15: installed 15", "15\n", "15", embeddedpostgres.V15, false},
		{"existing 14: download 14 rather than wipe it", "14\n", "", embeddedpostgres.V14, false},
		{"unsupported version: refuse", "9.6\n", "", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "postgres")
			if tc.pgVersion != "" {
				if err := os.MkdirAll(data, 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(data, "PG_VERSION"), []byte(tc.pgVersion), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			root, version, err := chooseBinaries(data)
			if (err != nil) != tc.wantErr {
				t.Fatalf("chooseBinaries error = %v; want error %v", err, tc.wantErr)
			}
			wantRoot := ""
			if tc.wantRoot != "" {
				wantRoot = filepath.Join(fake, tc.wantRoot)
			}
			if root != wantRoot || version != tc.wantVersion {
				t.Errorf("chooseBinaries = %q, %q; want %q, %q", root, version, wantRoot, tc.wantVersion)
			}
		})
	}
}

// DescribeEmbedded says what the embedded start would do, touching nothing.
func TestDescribeEmbedded(t *testing.T) {
	defer func(f func() int) { geteuid = f }(geteuid)
	defer func(r []string) { installedRoots = r }(installedRoots)
	installedRoots = nil
	geteuid = func() int { return 0 }
	if _, err := DescribeEmbedded(t.TempDir()); !errors.Is(err, ErrEmbeddedAsRoot) {
		t.Fatalf("DescribeEmbedded as root = %v; want ErrEmbeddedAsRoot", err)
	}
	geteuid = func() int { return 1000 }
	dir := t.TempDir()
	got, err := DescribeEmbedded(dir)
	if err != nil || got != "creates a new database in "+filepath.Join(dir, "postgres")+" with PostgreSQL 18 downloaded on first start" {
		t.Errorf("DescribeEmbedded(new) = %q, %v", got, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("DescribeEmbedded made %v", entries)
	}
	if err := os.MkdirAll(filepath.Join(dir, "postgres"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "postgres", "PG_VERSION"), []byte("16\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := DescribeEmbedded(dir); err != nil || !strings.HasPrefix(got, "starts the existing database in ") || !strings.HasSuffix(got, "PostgreSQL 16 downloaded on first start") {
		t.Errorf("DescribeEmbedded(existing 16) = %q, %v", got, err)
	}
}
