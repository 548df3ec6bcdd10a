package commands

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeZones keeps users' zones in a map; fail makes every call fail.
type fakeZones struct {
	byUser map[string]string
	def    *time.Location
	now    time.Time
	fail   bool
}

var _ TimeZones = (*fakeZones)(nil)

var errDown = errors.New("database down")

func (f *fakeZones) TimeZone(_ context.Context, user string) (string, bool, error) {
	if f.fail {
		return "", false, errDown
	}
	name := f.byUser[user]
	return name, name != "", nil
}

func (f *fakeZones) SetTimeZone(_ context.Context, user, name string) error {
	if f.fail {
		return errDown
	}
	f.byUser[user] = name
	return nil
}

func (f *fakeZones) Location() *time.Location { return f.def }
func (f *fakeZones) Now() time.Time           { return f.now }

func mustLoad(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// /timezone as a user goes through it: nothing set, set (by name, alias,
// lower case), refusals with examples, show, reset, and the database down.
func TestTimezone(t *testing.T) {
	f := &fakeZones{
		byUser: map[string]string{},
		def:    mustLoad(t, "Asia/Tokyo"),
		now:    time.Date(2026, 1, 15, 6, 4, 0, 0, time.UTC), // 15:04 in Tokyo
	}
	cmd := Timezone(f, quiet)
	use := func(sub, name string) string {
		t.Helper()
		req := Request{Command: "timezone", Subcommand: sub, UserID: "u1", GuildID: "g1", ChannelID: "c1"}
		if name != "" {
			req.Options = map[string]any{"name": name}
		}
		if !req.Can(cmd.Required(sub)) {
			t.Fatalf("/timezone %s refused", sub)
		}
		r := cmd.Run(t.Context(), req)
		if r.Public {
			t.Errorf("/timezone %s replied to the whole channel", sub)
		}
		return r.Text
	}

	steps := []struct {
		name      string
		sub, arg  string
		want      string
		wantSaved string
	}{
		{"nothing set: the server's default", "show", "", "サーバーの既定 Asia/Tokyo（UTC+09:00、いま 15:04）を使います", ""},
		{"set by its name", "set", "America/New_York", "タイムゾーンを America/New_York（UTC-05:00、いま 01:04）にしました", "America/New_York"},
		{"show what was set", "show", "", "あなたのタイムゾーン: America/New_York（UTC-05:00、いま 01:04）", "America/New_York"},
		{"set in lower case with a space", "set", "asia/kolkata", "Asia/Kolkata（UTC+05:30、いま 11:34）", "Asia/Kolkata"},
		{"set by a city", "set", "new york", "America/New_York（UTC-05:00", "America/New_York"},
		{"set by a Japanese alias", "set", "日本", "Asia/Tokyo（UTC+09:00、いま 15:04）", "Asia/Tokyo"},
		{"set by full-width letters", "set", "ＵＴＣ", "UTC（UTC+00:00、いま 06:04）", "UTC"},
		{"a name not listed but loadable", "set", "Etc/GMT-9", "Etc/GMT-9（UTC+09:00", "Etc/GMT-9"},
		{"a typo: the reason, examples and a guess", "set", "Asia/Tokio", "「Asia/Tokio」というタイムゾーンは見つかりません。IANA の名前（地域/都市を英語で）で入力してください（例：Asia/Tokyo、America/New_York）。もしかして: Asia/Tokyo", "Etc/GMT-9"},
		{"nothing like it", "set", "Mars/Olympus_Mons", "見つかりません。IANA の名前（地域/都市を英語で）で入力してください（例：Asia/Tokyo、America/New_York）。", "Etc/GMT-9"},
		{"Local is refused", "set", "Local", "Local はサーバーの時計のことで", "Etc/GMT-9"},
		{"a path is not a zone", "set", "../../etc/passwd", "見つかりません", "Etc/GMT-9"},
		{"no name", "set", "", "`name` に入れてください（例：Asia/Tokyo、America/New_York）", "Etc/GMT-9"},
		{"reset", "reset", "", "タイムゾーンの設定を解除しました。サーバーの既定 Asia/Tokyo（UTC+09:00、いま 15:04）を使います", ""},
		{"after reset, the default again", "show", "", "タイムゾーンは設定されていないので、サーバーの既定 Asia/Tokyo", ""},
		{"unknown subcommand", "other", "", unsupportedReply, ""},
	}
	for _, s := range steps {
		if got := use(s.sub, s.arg); !strings.Contains(got, s.want) {
			t.Errorf("%s: %q, want it to contain %q", s.name, got, s.want)
		}
		if f.byUser["u1"] != s.wantSaved {
			t.Errorf("%s: stored %q, want %q", s.name, f.byUser["u1"], s.wantSaved)
		}
	}

	// A zone stored long ago that this zone database no longer has.
	f.byUser["u1"] = "Asia/Atlantis"
	if got := use("show", ""); !strings.Contains(got, "Asia/Atlantis は読み込めないため、サーバーの既定 Asia/Tokyo") {
		t.Errorf("an unloadable stored zone: %q", got)
	}

	f.fail = true
	for _, sub := range []string{"show", "set", "reset"} {
		if got := use(sub, "Asia/Tokyo"); got != timezoneFailedReply {
			t.Errorf("%s with the database down: %q", sub, got)
		}
	}
	if got := cmd.Run(t.Context(), Request{Command: "timezone", Subcommand: "show"}).Text; got != unsupportedReply {
		t.Errorf("no user: %q", got)
	}
	for _, sub := range []string{"set", "show", "reset"} {
		if cmd.Required(sub) != 0 {
			t.Errorf("/timezone %s needs a permission; anyone sets their own", sub)
		}
	}
}

func TestTimezoneComplete(t *testing.T) {
	f := &fakeZones{def: time.UTC, now: time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)}
	cmd := Timezone(f, quiet)
	complete := func(typed string) []Choice {
		return cmd.Complete(t.Context(), Request{Command: "timezone", Subcommand: "set", Focused: "name", Options: map[string]any{"name": typed}})
	}
	tests := []struct {
		typed string
		first []string // the first values, in order
		has   string   // also among the choices ("" for none)
	}{
		{"", []string{"Asia/Tokyo", "UTC"}, "America/New_York"},
		{"tokyo", []string{"Asia/Tokyo"}, ""},
		{"TOK", []string{"Asia/Tokyo"}, ""},
		{"japan", []string{"Asia/Tokyo"}, ""},
		{"東京", []string{"Asia/Tokyo"}, ""},
		{"utc", []string{"UTC"}, ""},
		{"new y", []string{"America/New_York"}, ""},
		{"york", []string{"America/New_York"}, ""},
		{"pst", []string{"America/Los_Angeles"}, ""},
		{"america", []string{"America/Los_Angeles", "America/Denver", "America/Chicago", "America/New_York"}, "America/Adak"},
		{"asia/", []string{"Asia/Tokyo", "Asia/Seoul"}, "Asia/Kolkata"},
		{"os", []string{"Europe/Oslo"}, "Asia/Tokyo"}, // Oslo by its city; Tokyo by "osaka", after it
	}
	for _, tc := range tests {
		t.Run(tc.typed, func(t *testing.T) {
			cs := complete(tc.typed)
			if len(cs) == 0 || len(cs) > maxChoices {
				t.Fatalf("%d choices, want 1 to %d", len(cs), maxChoices)
			}
			var values []string
			for _, c := range cs {
				values = append(values, c.Value)
			}
			if len(values) < len(tc.first) || !slices.Equal(values[:len(tc.first)], tc.first) {
				t.Errorf("choices = %v, want them to begin %v", values, tc.first)
			}
			if tc.has != "" && !slices.Contains(values, tc.has) {
				t.Errorf("choices = %v, want %s among them", values, tc.has)
			}
		})
	}
	if cs := complete("tokyo"); cs[0].Name != "Asia/Tokyo（UTC+09:00）" {
		t.Errorf("the choice shows %q, want the name and its offset", cs[0].Name)
	}
	if cs := complete("new_york"); cs[0].Name != "America/New_York（UTC-04:00）" {
		t.Errorf("in July New York shows %q, want its summer offset", cs[0].Name)
	}
	if cs := complete("zzzz"); len(cs) != 0 {
		t.Errorf("nonsense offers %v, want nothing", cs)
	}
}

// Every zone offered can be set: it is a name time.LoadLocation knows.
// The binary embeds time/tzdata, so this holds without the system's too.
func TestZoneNamesLoad(t *testing.T) {
	if len(zoneNames) < 400 || !slices.IsSorted(zoneNames) {
		t.Fatalf("%d zone names, sorted %v; want over 400, sorted", len(zoneNames), slices.IsSorted(zoneNames))
	}
	if len(slices.Compact(slices.Clone(zoneNames))) != len(zoneNames) {
		t.Error("a zone name is listed twice")
	}
	for _, z := range zoneNames {
		if _, err := time.LoadLocation(z); err != nil {
			t.Errorf("listed zone %s: %v", z, err)
		}
	}
	for _, z := range append(slices.Clone(commonZones), "UTC", "Asia/Tokyo") {
		if !slices.Contains(zoneNames, z) {
			t.Errorf("%s is not listed", z)
		}
	}
	for alias, z := range zoneAliases {
		if !slices.Contains(zoneNames, z) {
			t.Errorf("alias %s is for %s, which is not listed", alias, z)
		}
		if alias != normalise(alias) {
			t.Errorf("alias %q would never match; write it as %q", alias, normalise(alias))
		}
	}
}

// BenchmarkZoneChoices is one keystroke of autocomplete (Discord waits
// about 3 seconds): matching every listed zone and alias, then loading the
// 25 offered to show their offsets.
func BenchmarkZoneChoices(b *testing.B) {
	now := time.Now()
	for b.Loop() {
		if cs := zoneChoices("a", now); len(cs) != maxChoices {
			b.Fatalf("%d choices", len(cs))
		}
	}
}
