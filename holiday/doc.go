// Package holiday knows Japan's national holidays (国民の祝日), computed by
// the rules of the law: fixed days, Happy Monday days, the equinoxes by the
// standard approximation, 振替休日 and 国民の休日, and the one-off moves of
// 2019–2021, each by the law of its time (振替休日 from April 1973, only the
// Monday before 2007; 国民の休日 from 1986, never a Sunday before 2007; the
// Happy Monday moves of 2000 and 2003; みどりの日 moving to May 4 in 2007;
// 山の日 from 2016; 天皇誕生日 by reign) and the days special laws made
// holidays. Dates from 1955 to 2099 are covered (FirstYear, LastYear),
// 1955–2027 checked day by day against the Cabinet Office's list; outside
// them no day is a holiday. Schedules that skip holidays (祝日は除く) and
// messages that name them use it.
package holiday
