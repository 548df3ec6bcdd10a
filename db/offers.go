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
}

// Why a press on an offer does nothing.
var (
	// ErrNotOffered: the offer is someone else's.
	ErrNotOffered = errors.New("offer made to someone else")
	// ErrOfferDecided: it was accepted or declined already.
	ErrOfferDecided = errors.New("offer already decided")
)

const offerColumns = "id, kind, space, user_id, guild_id, channel_id, payload, created_at, decided_at, accepted"

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

// DecideOffer records userID's answer to offer id, once: ErrNotFound when
// there is no such offer, ErrNotOffered when it is someone else's,
// ErrOfferDecided when it was answered already. It commits at once, so
// the work an acceptance starts (a Discord call) holds no lock; ReopenOffer
// undoes it when that work fails.
func DecideOffer(ctx context.Context, q Querier, id int64, userID string, accept bool) (Offer, error) {
	rows, err := q.Query(ctx, `UPDATE offers SET decided_at = now(), accepted = $3
WHERE id = $1 AND user_id = $2 AND decided_at IS NULL RETURNING `+offerColumns, id, userID, accept)
	if err != nil {
		return Offer{}, fmt.Errorf("decide offer %d: %w", id, err)
	}
	o, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Offer])
	if err == nil {
		return o, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return Offer{}, fmt.Errorf("decide offer %d: %w", id, err)
	}
	var owner string
	var decided bool
	err = q.QueryRow(ctx, "SELECT user_id, decided_at IS NOT NULL FROM offers WHERE id = $1", id).Scan(&owner, &decided)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return Offer{}, fmt.Errorf("decide offer %d: %w", id, ErrNotFound)
	case err != nil:
		return Offer{}, fmt.Errorf("decide offer %d: %w", id, err)
	case owner != userID:
		return Offer{}, fmt.Errorf("decide offer %d: %w", id, ErrNotOffered)
	}
	return Offer{}, fmt.Errorf("decide offer %d: %w", id, ErrOfferDecided)
}

// ReopenOffer makes offer id undecided again, after the work its
// acceptance started failed, so that the member may press once more.
func ReopenOffer(ctx context.Context, q Querier, id int64) error {
	if _, err := q.Exec(ctx, "UPDATE offers SET decided_at = NULL, accepted = false WHERE id = $1", id); err != nil {
		return fmt.Errorf("reopen offer %d: %w", id, err)
	}
	return nil
}
