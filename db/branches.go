package db

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Branch kinds: where a conversation's versions part.
const (
	BranchRegenerate = "regenerate" // an answer written again
	BranchEdit       = "edit"       // a user message edited and sent again
)

// ErrArchivedBranch refuses a version of a part of a conversation already
// summarised: the summary speaks for it.
var ErrArchivedBranch = errors.New("the conversation is summarised from there")

// Beginner starts transactions: *pgxpool.Pool, or a pgx.Tx (a nested one).
type Beginner interface {
	Begin(ctx context.Context) (pgx.Tx, error)
}

// BranchSet is the versions a conversation has from one point on.
type BranchSet struct {
	AnchorID int64  `json:"anchor_id"` // the last message they share; 0: none
	Shown    int    `json:"position"`  // the version in messages, from 1
	Count    int    `json:"count"`
	Kind     string `json:"kind"` // of the newest version
}

// branchMessage is a kept message of a version not shown.
type branchMessage struct {
	ID                int64           `json:"id"`
	Role              string          `json:"role"`
	AuthorID          string          `json:"author_id,omitempty"`
	AuthorName        string          `json:"author_name,omitempty"`
	Content           string          `json:"content"`
	PlatformMessageID string          `json:"platform_message_id,omitempty"`
	ReplyToID         *int64          `json:"reply_to_id,omitempty"`
	ReplyToPlatformID string          `json:"reply_to_platform_id,omitempty"`
	Model             string          `json:"model,omitempty"`
	CreatedAt         time.Time       `json:"created_at"`
	Tokens            *int            `json:"tokens,omitempty"`
	Images            json.RawMessage `json:"images,omitempty"`
	Activity          json.RawMessage `json:"activity,omitempty"`
	Archived          bool            `json:"-"`
}

// BranchPoint is where a new version of a conversation would start at
// message id: the last message before it (0: none) and the role and text of
// id itself.
func BranchPoint(ctx context.Context, q Querier, sessionID, id int64) (anchor int64, role, content string, err error) {
	err = q.QueryRow(ctx, `
SELECT coalesce((SELECT max(p.id) FROM messages p WHERE p.session_id = m.session_id AND p.id < m.id), 0), m.role, m.content
FROM messages m WHERE m.id = $2 AND m.session_id = $1`, sessionID, id).Scan(&anchor, &role, &content)
	if err != nil {
		return 0, "", "", fmt.Errorf("branch point at message %d: %w", id, interpretError(err))
	}
	return anchor, role, content, nil
}

// tail reads the messages of session after anchor, oldest first.
func tail(ctx context.Context, tx pgx.Tx, sessionID, anchor int64) ([]branchMessage, error) {
	rows, err := tx.Query(ctx, `
SELECT m.id, m.role, m.author_id, m.author_name, m.content, m.platform_message_id, m.reply_to_id, m.reply_to_platform_id,
       m.model, m.created_at, m.tokens, m.images, a.activity, m.archived_at IS NOT NULL
FROM messages m LEFT JOIN message_activity a ON a.message_id = m.id
WHERE m.session_id = $1 AND m.id > $2 ORDER BY m.id FOR UPDATE OF m`, sessionID, anchor)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []branchMessage
	for rows.Next() {
		var m branchMessage
		var images, activity []byte
		if err := rows.Scan(&m.ID, &m.Role, &m.AuthorID, &m.AuthorName, &m.Content, &m.PlatformMessageID, &m.ReplyToID,
			&m.ReplyToPlatformID, &m.Model, &m.CreatedAt, &m.Tokens, &images, &activity, &m.Archived); err != nil {
			return nil, err
		}
		m.Images, m.Activity = images, activity
		out = append(out, m)
	}
	return out, rows.Err()
}

// saveShown moves the version shown after anchor out of messages into its
// branch row (made at position 1, of kind, when there is none yet).
func saveShown(ctx context.Context, tx pgx.Tx, sessionID, anchor int64, kind string) error {
	ms, err := tail(ctx, tx, sessionID, anchor)
	if err != nil {
		return err
	}
	for _, m := range ms {
		if m.Archived {
			return ErrArchivedBranch
		}
	}
	if ms == nil {
		ms = []branchMessage{}
	}
	tag, err := tx.Exec(ctx, `UPDATE conversation_branches SET messages = $3
WHERE session_id = $1 AND anchor_id = $2 AND messages IS NULL`, sessionID, anchor, ms)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		if _, err := tx.Exec(ctx, `INSERT INTO conversation_branches (session_id, anchor_id, position, kind, messages)
VALUES ($1, $2, 1, $3, $4)`, sessionID, anchor, kind, ms); err != nil {
			return err
		}
	}
	_, err = tx.Exec(ctx, `DELETE FROM messages WHERE session_id = $1 AND id > $2`, sessionID, anchor)
	return err
}

// lockSession locks the row of a session not deleted, so that versions of
// it are made one at a time (and not once it is deleted), or is
// ErrNotFound.
func lockSession(ctx context.Context, tx pgx.Tx, id int64) error {
	var one int
	err := tx.QueryRow(ctx, `SELECT 1 FROM sessions WHERE id = $1 AND deleted_at IS NULL FOR UPDATE`, id).Scan(&one)
	return interpretError(err)
}

// ForkBranch starts a new version of session after anchor: the version
// shown is kept as a branch and leaves messages, and an empty version of
// kind becomes the one shown, for the turn about to run to fill. A deleted
// session is ErrNotFound.
func ForkBranch(ctx context.Context, q Beginner, sessionID, anchor int64, kind string) error {
	err := pgx.BeginFunc(ctx, q, func(tx pgx.Tx) error {
		if err := lockSession(ctx, tx, sessionID); err != nil {
			return err
		}
		if err := saveShown(ctx, tx, sessionID, anchor, kind); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO conversation_branches (session_id, anchor_id, position, kind)
SELECT $1, $2, max(position) + 1, $3 FROM conversation_branches WHERE session_id = $1 AND anchor_id = $2`, sessionID, anchor, kind)
		return err
	})
	if err != nil {
		return fmt.Errorf("fork session %d after message %d: %w", sessionID, anchor, err)
	}
	return nil
}

// SwitchBranch shows version position of session after anchor: the one
// shown is kept as a branch, the chosen one's messages go back into
// messages (under new ids; deeper versions follow them).
func SwitchBranch(ctx context.Context, q Beginner, sessionID, anchor int64, position int) error {
	err := pgx.BeginFunc(ctx, q, func(tx pgx.Tx) error {
		if err := lockSession(ctx, tx, sessionID); err != nil {
			return err
		}
		var raw []byte
		err := tx.QueryRow(ctx, `SELECT messages FROM conversation_branches WHERE session_id = $1 AND anchor_id = $2 AND position = $3`,
			sessionID, anchor, position).Scan(&raw)
		if err != nil {
			return interpretError(err)
		}
		if raw == nil {
			return nil // shown already
		}
		var ms []branchMessage
		if err := json.Unmarshal(raw, &ms); err != nil {
			return err
		}
		if err := saveShown(ctx, tx, sessionID, anchor, BranchEdit); err != nil {
			return err
		}
		ids := map[int64]int64{}
		for _, m := range ms {
			var replyTo *int64
			if m.ReplyToID != nil {
				if n, ok := ids[*m.ReplyToID]; ok {
					replyTo = &n
				} else {
					replyTo = m.ReplyToID
				}
			}
			var images any
			if len(m.Images) > 0 && string(m.Images) != "null" {
				images = m.Images
			}
			var id int64
			if err := tx.QueryRow(ctx, `
INSERT INTO messages (session_id, role, author_id, author_name, content, platform_message_id, reply_to_id,
                      reply_to_platform_id, model, created_at, tokens, images)
VALUES ($1, $2, $3, $4, $5, $6, (SELECT id FROM messages WHERE id = $7), $8, $9, $10, $11, $12) RETURNING id`,
				sessionID, m.Role, m.AuthorID, m.AuthorName, m.Content, m.PlatformMessageID, replyTo,
				m.ReplyToPlatformID, m.Model, m.CreatedAt, m.Tokens, images).Scan(&id); err != nil {
				return err
			}
			ids[m.ID] = id
			if len(m.Activity) > 0 && string(m.Activity) != "null" {
				if _, err := tx.Exec(ctx, `INSERT INTO message_activity (message_id, activity) VALUES ($1, $2)`, id, []byte(m.Activity)); err != nil {
					return err
				}
			}
			// Versions further on part from this message: they follow it.
			if _, err := tx.Exec(ctx, `UPDATE conversation_branches SET anchor_id = $3 WHERE session_id = $1 AND anchor_id = $2`,
				sessionID, m.ID, id); err != nil {
				return err
			}
		}
		_, err = tx.Exec(ctx, `UPDATE conversation_branches SET messages = NULL WHERE session_id = $1 AND anchor_id = $2 AND position = $3`,
			sessionID, anchor, position)
		return err
	})
	if err != nil {
		return fmt.Errorf("show version %d of session %d after message %d: %w", position, sessionID, anchor, err)
	}
	return nil
}

// SessionBranches returns the version sets of a session, by anchor.
func SessionBranches(ctx context.Context, q Querier, sessionID int64) (map[int64]BranchSet, error) {
	rows, err := q.Query(ctx, `
SELECT anchor_id, count(*), coalesce(max(position) FILTER (WHERE messages IS NULL), 0),
       (array_agg(kind ORDER BY position DESC))[1]
FROM conversation_branches WHERE session_id = $1 GROUP BY anchor_id`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("versions of session %d: %w", sessionID, err)
	}
	defer rows.Close()
	out := map[int64]BranchSet{}
	for rows.Next() {
		var b BranchSet
		if err := rows.Scan(&b.AnchorID, &b.Count, &b.Shown, &b.Kind); err != nil {
			return nil, fmt.Errorf("versions of session %d: %w", sessionID, err)
		}
		out[b.AnchorID] = b
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("versions of session %d: %w", sessionID, err)
	}
	return out, nil
}

// BranchHeads is, for each point of session with versions (by anchor),
// the text each version starts with, in the order they were made; the
// version shown is nil there (its first message is in messages).
func BranchHeads(ctx context.Context, q Querier, sessionID int64) (map[int64][]*string, error) {
	rows, err := q.Query(ctx, `
SELECT anchor_id, CASE WHEN messages IS NULL THEN NULL ELSE coalesce(messages->0->>'content', '') END
FROM conversation_branches WHERE session_id = $1 ORDER BY anchor_id, position`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("heads of the versions of session %d: %w", sessionID, err)
	}
	defer rows.Close()
	out := map[int64][]*string{}
	for rows.Next() {
		var anchor int64
		var head *string
		if err := rows.Scan(&anchor, &head); err != nil {
			return nil, fmt.Errorf("heads of the versions of session %d: %w", sessionID, err)
		}
		out[anchor] = append(out[anchor], head)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("heads of the versions of session %d: %w", sessionID, err)
	}
	return out, nil
}
