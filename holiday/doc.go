// Package holiday knows Japan's national holidays (国民の祝日), computed by
// the rules of the law: fixed days, Happy Monday days, the equinoxes by the
// standard approximation, 振替休日 and 国民の休日, and the one-off moves of
// 2019–2021. Dates from 1980 to 2099 are covered; schedules that skip
// holidays (祝日は除く) and messages that name them use it.
package holiday
