package db

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Offer is something the model proposed on a member's behalf (a fact to
// keep, a poll, a server event), done only when that member accepts it.
type Offer struct {
	ID        int64           `db:"id"`
	Kind      string          `db:"kind"`
	Space     string          `db:"space"`
	UserID    string          `db:"user_id"`
	GuildID   string          `db:"guild_id"`
	ChannelID string          `db:"channel_id"`
	Payload   json.RawMessage `db:"payload"`
	CreatedAt time.Time       `db:"created_at"`
	DecidedAt *time.Time      `db:"decided_at"`
	Accepted  bool            `db:"accepted"`
	// Attempts counts the presses that accepted it, this one included:
	// after the first, an earlier one may have reached Discord.
	Attempts int        `db:"attempts"`
	DoneAt   *time.Time `db:"done_at"` // when its acceptance's work succeeded, or it was declined
}

// Why a press on an offer does nothing.
var (
	// ErrNotOffered: the offer is someone else's.
	ErrNotOffered = errors.New("offer made to someone else")
	// ErrOfferDecided: it was accepted or declined already.
	ErrOfferDecided = errors.New("offer already decided")
	// ErrOfferBusy: another press accepted it and its work is running.
	ErrOfferBusy = errors.New("offer being acted on")
	// ErrOfferExpired: it was made longer ago than it may be answered.
	ErrOfferExpired = errors.New("offer expired")
)

const offerColumns = "id, kind, space, user_id, guild_id, channel_id, payload, created_at, decided_at, accepted, attempts, done_at"

// OfferPress is one member's press of an offer's button.
type OfferPress struct {
	ID     int64
	UserID string
	Accept bool
	// Lifetime is how long after it was made an offer may be answered;
	// older, the press gets ErrOfferExpired. Zero: for ever.
	Lifetime time.Duration
	// Lease is how long an acceptance's work may run before a later press
	// may take the offer over (the process doing it is taken for gone).
	// Zero: never.
	Lease time.Duration
}

// CreateOffer keeps o (ID, CreatedAt and the decision are ignored) and
// returns it as stored.
func CreateOffer(ctx context.Context, q Querier, o Offer) (Offer, error) {
	rows, err := q.Query(ctx, `INSERT INTO offers (kind, space, user_id, guild_id, channel_id, payload)
VALUES ($1, $2, $3, $4, $5, $6) RETURNING `+offerColumns, o.Kind, o.Space, o.UserID, o.GuildID, o.ChannelID, o.Payload)
	if err != nil {
		return Offer{}, fmt.Errorf("create %s offer: %w", o.Kind, err)
	}
	out, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Offer])
	if err != nil {
		return Offer{}, fmt.Errorf("create %s offer: %w", o.Kind, err)
	}
	return out, nil
}

// DecideOffer records p's answer to its offer, claiming it in one
// statement: ErrNotFound when there is no such offer, ErrNotOffered when it
// is someone else's, ErrOfferDecided when it was answered already,
// ErrOfferBusy while another press's acceptance is at work, and
// ErrOfferExpired when it is past p.Lifetime. It commits at once, so the
// work an acceptance starts (a Discord call) holds no lock: FinishOffer
// records that work done, ReopenOffer undoes the claim when it failed.
func DecideOffer(ctx context.Context, q Querier, p OfferPress) (Offer, error) {
	rows, err := q.Query(ctx, `UPDATE offers SET decided_at = now(), accepted = $3,
    attempts = attempts + CASE WHEN $3 THEN 1 ELSE 0 END,
    done_at = CASE WHEN $3 THEN NULL ELSE now() END
WHERE id = $1 AND user_id = $2
  AND ($4 = 0 OR created_at > now() - make_interval(secs => $4))
  AND (decided_at IS NULL OR accepted AND done_at IS NULL AND $5 > 0 AND decided_at < now() - make_interval(secs => $5))
RETURNING `+offerColumns, p.ID, p.UserID, p.Accept, p.Lifetime.Seconds(), p.Lease.Seconds())
	if err != nil {
		return Offer{}, fmt.Errorf("decide offer %d: %w", p.ID, err)
	}
	o, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Offer])
	if err == nil {
		return o, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return Offer{}, fmt.Errorf("decide offer %d: %w", p.ID, err)
	}
	var owner string
	var decided, done, expired bool
	err = q.QueryRow(ctx, `SELECT user_id, decided_at IS NOT NULL, done_at IS NOT NULL,
    $2 > 0 AND created_at <= now() - make_interval(secs => $2)
FROM offers WHERE id = $1`, p.ID, p.Lifetime.Seconds()).Scan(&owner, &decided, &done, &expired)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return Offer{}, fmt.Errorf("decide offer %d: %w", p.ID, ErrNotFound)
	case err != nil:
		return Offer{}, fmt.Errorf("decide offer %d: %w", p.ID, err)
	case owner != p.UserID:
		return Offer{}, fmt.Errorf("decide offer %d: %w", p.ID, ErrNotOffered)
	case done:
		return Offer{}, fmt.Errorf("decide offer %d: %w", p.ID, ErrOfferDecided)
	case decided:
		return Offer{}, fmt.Errorf("decide offer %d: %w", p.ID, ErrOfferBusy)
	case expired:
		return Offer{}, fmt.Errorf("decide offer %d: %w", p.ID, ErrOfferExpired)
	}
	// Answered or reopened between the two statements: as good as busy.
	return Offer{}, fmt.Errorf("decide offer %d: %w", p.ID, ErrOfferBusy)
}

// FinishOffer records that the work of offer id's acceptance succeeded:
// later presses get ErrOfferDecided.
func FinishOffer(ctx context.Context, q Querier, id int64) error {
	if _, err := q.Exec(ctx, "UPDATE offers SET done_at = now() WHERE id = $1 AND accepted", id); err != nil {
		return fmt.Errorf("finish offer %d: %w", id, err)
	}
	return nil
}

// ReopenOffer makes offer id undecided again, after the work of its
// acceptance number attempt failed, so that the member may press once
// more. Its attempts stay counted. A later attempt's claim (one that took
// the offer over past the lease) and a finished offer stay as they are.
func ReopenOffer(ctx context.Context, q Querier, id int64, attempt int) error {
	if _, err := q.Exec(ctx, `UPDATE offers SET decided_at = NULL, accepted = false, done_at = NULL
WHERE id = $1 AND attempts = $2 AND done_at IS NULL`, id, attempt); err != nil {
		return fmt.Errorf("reopen offer %d: %w", id, err)
	}
	return nil
}

// DeleteOffersBefore deletes the offers made more than age ago (by the
// database's clock, as DecideOffer's lifetime is read), answered or not,
// and returns how many.
func DeleteOffersBefore(ctx context.Context, q Querier, age time.Duration) (int64, error) {
	tag, err := q.Exec(ctx, "DELETE FROM offers WHERE created_at < now() - make_interval(secs => $1)", age.Seconds())
	if err != nil {
		return 0, fmt.Errorf("delete offers older than %s: %w", age, err)
	}
	return tag.RowsAffected(), nil
}
