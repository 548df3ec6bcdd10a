package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"

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
	file := web.PasswordFile(cfg.DataDir)
	if removed, err := web.RemovePasswordFile(file); err != nil {
		fmt.Fprintf(stderr, "note: the generated password's file %s could not be removed: %v\n", file, err)
	} else if removed {
		fmt.Fprintf(stdout, "removed %s, which held the generated password\n", file)
	}
	if cfg.AdminPassword != "" {
		fmt.Fprintln(stderr, "note: ADMIN_PASSWORD is set and replaces this password at the next start; unset it to keep this one")
	}
	return nil
}
