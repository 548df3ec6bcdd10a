package holiday

import (
	"bufio"
	"os"
	"strings"
	"testing"
	"time"
)

// TestCabinetOfficeList walks every day of 2020–2027 against the Cabinet
// Office's list: each listed day is a holiday with its name, and no other
// day is one.
func TestCabinetOfficeList(t *testing.T) {
	f, err := os.Open("testdata/cabinet_office_2020_2027.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		day, name, ok := strings.Cut(line, ",")
		if !ok {
			t.Fatalf("bad line %q", line)
		}
		want[day] = name
	}
	if len(want) < 8*15 {
		t.Fatalf("the list has only %d days", len(want))
	}
	days := 0
	for d := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC); d.Year() <= 2027; d = d.AddDate(0, 0, 1) {
		days++
		key := d.Format(time.DateOnly)
		got, ok := Lookup(d.Date())
		if name, listed := want[key]; listed != ok || got != name {
			t.Errorf("%s (%s): Lookup = %q, %v; the list says %q, %v", key, d.Weekday(), got, ok, name, listed)
		}
	}
	if days != 2922 {
		t.Errorf("walked %d days", days)
	}
}

func TestRules(t *testing.T) {
	tests := []struct {
		date string
		want string // "" when not a holiday
	}{
		{"2019-04-30", "国民の休日"},
		{"2019-05-01", "即位の日"},
		{"2019-05-02", "国民の休日"},
		{"2019-05-06", "振替休日"},
		{"2019-10-22", "即位礼正殿の儀"},
		{"2019-12-23", ""}, // no 天皇誕生日 in 2019
		{"2018-12-23", "天皇誕生日"},
		{"2018-12-24", "振替休日"},
		{"2015-09-22", "国民の休日"}, // シルバーウィーク
		{"2009-09-22", "国民の休日"},
		{"2019-10-14", "体育の日"},
		{"2030-03-20", "春分の日"},
		{"2030-09-23", "秋分の日"},
		{"2032-09-21", "国民の休日"},
		{"2099-03-20", "春分の日"},
		{"1999-01-15", "成人の日"},
		{"2000-01-10", "成人の日"},
		{"2029-05-03", "憲法記念日"},
		{"2029-05-04", "みどりの日"},
		{"2029-05-05", "こどもの日"},
		{"2030-05-06", "振替休日"}, // 5/5 a Sunday
		// Each period's law.
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
		{"2026-12-02", ""},
		{"1954-01-01", ""}, // before the range
		{"2100-01-01", ""},
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

// The date is read in the time's own location: 2027-01-01 00:30 in Tokyo
// is still 2026-12-31 in UTC.
func TestIsReadsTheLocation(t *testing.T) {
	tokyo := time.FixedZone("JST", 9*3600)
	at := time.Date(2027, 1, 1, 0, 30, 0, 0, tokyo)
	if !Is(at) || Name(at) != "元日" {
		t.Errorf("%v in Tokyo: Is = %v, Name = %q", at, Is(at), Name(at))
	}
	if Is(at.UTC()) {
		t.Errorf("%v in UTC is New Year's Eve, not a holiday", at.UTC())
	}
}

// holidaysIn counts year's holidays by asking Lookup of every day.
func holidaysIn(year int) int {
	n := 0
	for d := time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC); d.Year() == year; d = d.AddDate(0, 0, 1) {
		if _, ok := Lookup(d.Date()); ok {
			n++
		}
	}
	return n
}

func TestHolidaysInAYear(t *testing.T) {
	if n := holidaysIn(2026); n != 18 {
		t.Errorf("2026 has %d holidays, want 18", n)
	}
	if n := holidaysIn(1900); n != 0 {
		t.Errorf("1900, out of range, has %d holidays", n)
	}
}
