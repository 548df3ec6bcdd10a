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

// TestLawOfItsTime: the days each period's rules decide, by name.
func TestLawOfItsTime(t *testing.T) {
	tests := []struct {
		date string
		want string // "" when not a holiday
	}{
		// Before 2007 a Sunday holiday gave only the Monday: 5/3 a
		// Sunday made 5/4 振替休日, and 5/6 an ordinary day.
		{"1998-05-04", "振替休日"},
		{"1998-05-06", ""},
		{"1992-05-04", "振替休日"},
		{"1992-05-06", ""},
		{"2009-05-06", "振替休日"}, // from 2007, the next day not a holiday
		// 国民の休日 from 1986, not on a Sunday before 2007.
		{"1985-05-04", ""},
		{"1986-05-04", ""}, // a Sunday
		{"1988-05-04", "国民の休日"},
		{"2006-05-04", "国民の休日"},
		{"2007-05-04", "みどりの日"},
		{"2006-04-29", "みどりの日"},
		{"2007-04-29", "昭和の日"},
		{"1988-04-29", "天皇誕生日"},
		// 振替休日 from 12 April 1973.
		{"1973-02-12", ""},
		{"1973-04-30", "振替休日"},
		{"1966-10-10", "体育の日"},
		{"1965-10-10", ""},
		{"1966-02-11", ""},
		{"1967-02-11", "建国記念の日"},
		{"1999-10-11", "振替休日"},
		{"2000-10-09", "体育の日"},
		{"2002-09-16", "振替休日"},
		{"2003-09-15", "敬老の日"},
		{"2003-07-21", "海の日"},
		{"1995-07-20", ""},
		{"2015-08-11", ""},
		{"2016-08-11", "山の日"},
		{"1959-04-10", "皇太子明仁親王の結婚の儀"},
		{"1960-03-20", "春分の日"},
		{"1979-09-24", "秋分の日"},
	}
	for _, tc := range tests {
		t.Run(tc.date, func(t *testing.T) {
			d, err := time.Parse(time.DateOnly, tc.date)
			if err != nil {
				t.Fatal(err)
			}
			if got := Name(d); got != tc.want {
				t.Errorf("Name(%s) = %q, want %q", tc.date, got, tc.want)
			}
		})
	}
}
