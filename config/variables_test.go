package config

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// settingsTable is the one table of environment variables, for users.
const settingsTable = "../docs/ja/settings.md"

// tableVariables reads the variables of the settings table: the names in
// backquotes in the first cell of each row ("`A` / `B`" is two).
func tableVariables(t *testing.T, path string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	name := regexp.MustCompile("`([A-Z][A-Z0-9_]*)`")
	rows := map[string]int{}
	for i, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		first, _, _ := strings.Cut(strings.TrimPrefix(line, "|"), "|")
		for _, m := range name.FindAllStringSubmatch(first, -1) {
			if prev, dup := rows[m[1]]; dup {
				t.Errorf("%s: %s has two rows (lines %d and %d)", path, m[1], prev, i+1)
			}
			rows[m[1]] = i + 1
		}
	}
	return rows
}

// TestSettingsTable: every variable config reads has its row in the settings
// table, and every row is a variable config reads.
func TestSettingsTable(t *testing.T) {
	rows := tableVariables(t, settingsTable)
	vars := variables()
	if len(vars) < 40 {
		t.Fatalf("variables() found only %d variables: %v", len(vars), vars)
	}
	for _, v := range vars {
		if _, ok := rows[v]; !ok {
			t.Errorf("%s is read by config but has no row in %s: add one (default and meaning, in Japanese)", v, settingsTable)
		}
	}
	for v, line := range rows {
		if !slices.Contains(vars, v) {
			t.Errorf("%s:%d has a row for %s, which config does not read: remove the row, or read the variable in config.Parse", settingsTable, line, v)
		}
	}
}

// TestVariablesFollowParse: a variable Parse starts reading shows up in
// variables, and so in the table check, without a list kept by hand.
func TestVariablesFollowParse(t *testing.T) {
	vars := variables()
	for _, v := range []string{"DISCORD_TOKEN", "ADMIN_PASSWORD", "TAVILY_API_KEY", "QUAKE_MENTION", "DISCORD_REACTIONS", "REMINDER_MODEL", "USER_RATE_LIMIT"} {
		if !slices.Contains(vars, v) {
			t.Errorf("variables() lacks %s, which Parse reads", v)
		}
	}
	if !slices.IsSorted(vars) {
		t.Errorf("variables() is not sorted: %v", vars)
	}
}

// TestTableDisagreement: the table check names a missing row and a stale one.
func TestTableDisagreement(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/settings.md"
	table := "| 変数 | 既定値 | 意味 |\n|---|---|---|\n| `DISCORD_TOKEN` / `OLD_GONE` | （なし） | x |\n| `DATA_DIR` | `./data` | y |\n"
	if err := os.WriteFile(path, []byte(table), 0o600); err != nil {
		t.Fatal(err)
	}
	rows := tableVariables(t, path)
	if _, ok := rows["OLD_GONE"]; !ok || len(rows) != 3 {
		t.Fatalf("rows = %v, want DISCORD_TOKEN, OLD_GONE and DATA_DIR", rows)
	}
	vars := variables()
	if slices.Contains(vars, "OLD_GONE") {
		t.Error("a variable config does not read is among variables()")
	}
	if _, ok := rows["EMBED_MODEL"]; ok || !slices.Contains(vars, "EMBED_MODEL") {
		t.Error("the check could not see that EMBED_MODEL lacks its row")
	}
}
