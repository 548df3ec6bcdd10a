package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// MemberFact is one thing a member asked yorozu to keep about themselves,
// in one space.
type MemberFact struct {
	ID        int64     `db:"id"`
	Space     string    `db:"space"`
	UserID    string    `db:"user_id"`
	UserName  string    `db:"user_name"`
	Content   string    `db:"content"`
	CreatedAt time.Time `db:"created_at"`
}

// ErrTooManyFacts refuses a fact past the member's limit in the space.
var ErrTooManyFacts = errors.New("too many facts")

const memberFactColumns = "id, space, user_id, user_name, content, created_at"

// memberFactsSQL reads one member's facts in a space, oldest first.
const memberFactsSQL = "SELECT " + memberFactColumns + " FROM member_facts WHERE space = $1 AND user_id = $2 ORDER BY id"

// AddMemberFact keeps content for userID in space, unless the member has
// max facts there already (ErrTooManyFacts). The same text kept twice is one
// fact: the existing one is returned. The member's adds take one advisory
// lock while counting, so two at once cannot pass the limit together.
func AddMemberFact(ctx context.Context, pool Beginner, space, userID, userName, content string, max int) (MemberFact, error) {
	var f MemberFact
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		// One member's adds are serialised by an advisory lock on the pair:
		// locking rows would not stop the first insert racing another.
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtextextended($1 || '/' || $2, 35))", space, userID); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, memberFactsSQL, space, userID)
		if err != nil {
			return err
		}
		facts, err := pgx.CollectRows(rows, pgx.RowToStructByName[MemberFact])
		if err != nil {
			return err
		}
		for _, old := range facts {
			if old.Content == content {
				f = old
				return nil
			}
		}
		if len(facts) >= max {
			return ErrTooManyFacts
		}
		rows, err = tx.Query(ctx, `INSERT INTO member_facts (space, user_id, user_name, content) VALUES ($1, $2, $3, $4)
RETURNING `+memberFactColumns, space, userID, userName, content)
		if err != nil {
			return err
		}
		f, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[MemberFact])
		return err
	})
	if err != nil {
		return MemberFact{}, fmt.Errorf("add fact of member %s in %s: %w", userID, space, err)
	}
	return f, nil
}

// MemberFacts lists userID's facts in space, oldest first.
func MemberFacts(ctx context.Context, q Querier, space, userID string) ([]MemberFact, error) {
	rows, err := q.Query(ctx, memberFactsSQL, space, userID)
	if err != nil {
		return nil, fmt.Errorf("facts of member %s in %s: %w", userID, space, err)
	}
	facts, err := pgx.CollectRows(rows, pgx.RowToStructByName[MemberFact])
	if err != nil {
		return nil, fmt.Errorf("facts of member %s in %s: %w", userID, space, err)
	}
	return facts, nil
}

// QueueMemberFacts queues MemberFacts into a turn's batch of reads.
func QueueMemberFacts(b *Batch, space, userID string, dst *[]MemberFact) {
	queueRows(b, "member facts", dst, memberFactsSQL, space, userID)
}

// SpaceMemberFacts lists every member's facts in space, by member name,
// then oldest first (the admin page).
func SpaceMemberFacts(ctx context.Context, q Querier, space string) ([]MemberFact, error) {
	rows, err := q.Query(ctx, "SELECT "+memberFactColumns+" FROM member_facts WHERE space = $1 ORDER BY user_name, user_id, id", space)
	if err != nil {
		return nil, fmt.Errorf("facts in %s: %w", space, err)
	}
	facts, err := pgx.CollectRows(rows, pgx.RowToStructByName[MemberFact])
	if err != nil {
		return nil, fmt.Errorf("facts in %s: %w", space, err)
	}
	return facts, nil
}

// DeleteMemberFact deletes fact id of userID in space; ErrNotFound when
// there is none (or it is someone else's).
func DeleteMemberFact(ctx context.Context, q Querier, space, userID string, id int64) error {
	tag, err := q.Exec(ctx, "DELETE FROM member_facts WHERE id = $1 AND space = $2 AND user_id = $3", id, space, userID)
	if err != nil {
		return fmt.Errorf("delete fact %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("delete fact %d: %w", id, ErrNotFound)
	}
	return nil
}

// DeleteMemberFacts deletes all of userID's facts in space and returns how
// many there were.
func DeleteMemberFacts(ctx context.Context, q Querier, space, userID string) (int64, error) {
	tag, err := q.Exec(ctx, "DELETE FROM member_facts WHERE space = $1 AND user_id = $2", space, userID)
	if err != nil {
		return 0, fmt.Errorf("delete facts of member %s in %s: %w", userID, space, err)
	}
	return tag.RowsAffected(), nil
}

// DeleteSpaceMemberFact deletes fact id in space, whoever's it is (the
// admin page); ErrNotFound when there is none.
func DeleteSpaceMemberFact(ctx context.Context, q Querier, space string, id int64) error {
	tag, err := q.Exec(ctx, "DELETE FROM member_facts WHERE id = $1 AND space = $2", id, space)
	if err != nil {
		return fmt.Errorf("delete fact %d in %s: %w", id, space, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("delete fact %d in %s: %w", id, space, ErrNotFound)
	}
	return nil
}
