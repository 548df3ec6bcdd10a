package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/yorozu-bot/yorozu/config"
	"github.com/yorozu-bot/yorozu/web"
)

const adminUsage = `Usage: yorozu admin set-password

Read a new admin page password from standard input (one line, at least %d
characters), store its hash and log every browser out. The generated
password's file (DATA_DIR/admin-password) is removed. ADMIN_PASSWORD, when
set, wins over it at the next start.

  echo 'a long passphrase' | yorozu admin set-password
`

// adminCmd handles "admin set-password"; stdin gives the password.
func adminCmd(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		fmt.Fprintf(stdout, adminUsage, web.MinPasswordLength)
		return nil
	}
	if len(args) != 1 || args[0] != "set-password" {
		fmt.Fprintf(stderr, adminUsage, web.MinPasswordLength)
		return fmt.Errorf("admin: want \"set-password\", got %q: %w", args, errUsage)
	}
	line, err := bufio.NewReader(stdin).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("read the password from stdin: %w", err)
	}
	cfg, logger, err := setup(getenv, stderr)
	if err != nil {
		return err
	}
	d, err := openMigrated(ctx, cfg, stderr, logger)
	if err != nil {
		return err
	}
	defer d.close()
	if err := web.SetPassword(ctx, d.pool, line); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "admin password changed; every browser must log in again")
	file := passwordFile(cfg)
	if removed, err := removePasswordFile(file); err != nil {
		fmt.Fprintf(stderr, "note: the generated password's file %s could not be removed: %v\n", file, err)
	} else if removed {
		fmt.Fprintf(stdout, "removed %s, which held the generated password\n", file)
	}
	if cfg.AdminPassword != "" {
		fmt.Fprintln(stderr, "note: ADMIN_PASSWORD is set and replaces this password at the next start; unset it to keep this one")
	}
	return nil
}

// passwordFile is where a generated admin password is left for the admin.
func passwordFile(cfg *config.Config) string {
	return filepath.Join(cfg.DataDir, "admin-password")
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

// removePasswordFile removes the generated password's file once it is no
// longer the password; removed says there was one.
func removePasswordFile(path string) (removed bool, err error) {
	err = os.Remove(path)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	}
	return false, fmt.Errorf("remove %s: %w", path, err)
}
