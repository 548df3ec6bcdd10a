package holiday

import (
	"bufio"
	"os"
	"strings"
	"testing"
	"time"
)

// cabinetNames are the names the Cabinet Office's list gives where Name
// says more: its 休日 is a 振替休日 or a 国民の休日, told apart by the law.
var cabinetNames = map[string][]string{
	"休日":           {"振替休日", "国民の休日"},
	"休日（祝日扱い）":     {"即位の日", "即位礼正殿の儀"},
	"体育の日（スポーツの日）": {"体育の日"},
	"結婚の儀":         {"皇太子明仁親王の結婚の儀", "皇太子徳仁親王の結婚の儀"},
	"大喪の礼":         {"昭和天皇の大喪の礼"},
}

// TestEveryYearOfTheCabinetOfficeList walks every day from 1955 to 2027
// against the Cabinet Office's whole list: each listed day is a holiday by
// its name, no other day is one, whatever the law of the year was.
func TestEveryYearOfTheCabinetOfficeList(t *testing.T) {
	f, err := os.Open("testdata/syukujitsu.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[time.Time]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		day, name, ok := strings.Cut(line, ",")
		d, err := time.Parse("2006/1/2", day)
		if !ok || err != nil {
			t.Fatalf("bad line %q", line)
		}
		want[d] = name
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(want) < 1000 {
		t.Fatalf("the list has only %d days", len(want))
	}
	wrong := map[int]int{}
	for d := time.Date(1955, 1, 1, 0, 0, 0, 0, time.UTC); d.Year() <= 2027; d = d.AddDate(0, 0, 1) {
		got, ok := Lookup(d.Date())
		name, listed := want[d]
		if listed != ok || ok && got != name && !contains(cabinetNames[name], got) {
			wrong[d.Year()]++
			t.Errorf("%s (%s): Lookup = %q, %v; the list says %q, %v", d.Format(time.DateOnly), d.Weekday(), got, ok, name, listed)
		}
	}
	if len(wrong) > 0 {
		t.Errorf("days wrong by year: %v", wrong)
	}
}

func contains(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}
