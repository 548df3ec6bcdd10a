package web

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/jackc/pgx/v5/pgxpool"
)

// EnsurePasswordFile makes sure there is an admin password (EnsurePassword):
// a generated one is written to file, readable by this user only and never
// to the log; with envPassword (ADMIN_PASSWORD) set, a file left from a
// generated one is removed. What it could not do with the file is logged.
func EnsurePasswordFile(ctx context.Context, pool *pgxpool.Pool, envPassword, file string, log *slog.Logger) error {
	pw, err := EnsurePassword(ctx, pool, envPassword)
	if err != nil {
		return fmt.Errorf("admin password: %w", err)
	}
	switch {
	case pw.Generated != "":
		if err := writePasswordFile(file, pw.Generated); err != nil {
			log.Error("admin page password generated but it could not be stored, so nobody knows it: "+
				"set one with `yorozu admin set-password` (reads stdin) or ADMIN_PASSWORD", "path", file, "err", err)
			break
		}
		log.Warn("admin page password generated and written to a file only this user can read: log in at /login with it, "+
			"then change it with `yorozu admin set-password` (reads stdin) or set ADMIN_PASSWORD (the file is removed then)", "path", file)
	case envPassword != "":
		if pw.Replaced {
			log.Info("ADMIN_PASSWORD replaced the stored admin password; every admin login was ended")
		}
		// A password generated before is no longer the one in force.
		if removed, err := RemovePasswordFile(file); err != nil {
			log.Warn("ADMIN_PASSWORD is set, but the generated password's file could not be removed", "path", file, "err", err)
		} else if removed {
			log.Info("ADMIN_PASSWORD is set: removed the generated password's file", "path", file)
		}
	}
	return nil
}

// PasswordFile is where a generated admin password is left for the admin:
// admin-password in DATA_DIR.
func PasswordFile(dataDir string) string {
	return filepath.Join(dataDir, "admin-password")
}

// writePasswordFile writes pw to path, readable by this user only (0600),
// replacing what was there in one step.
func writePasswordFile(path, pw string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	f, err := os.CreateTemp(dir, ".admin-password-*") // created 0600
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	_, err = f.WriteString(pw + "\n")
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// RemovePasswordFile removes the generated password's file once it is no
// longer the password; removed says there was one.
func RemovePasswordFile(path string) (removed bool, err error) {
	err = os.Remove(path)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	}
	return false, fmt.Errorf("remove %s: %w", path, err)
}
