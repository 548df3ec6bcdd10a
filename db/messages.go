package db

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Message roles, as stored in messages.role.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleSystem    = "system"
)

// Message is a row of messages: one turn of a session.
type Message struct {
	ID                int64      `db:"id"`
	SessionID         int64      `db:"session_id"`
	Role              string     `db:"role"` // RoleUser, RoleAssistant or RoleSystem
	AuthorID          string     `db:"author_id"`
	AuthorName        string     `db:"author_name"`
	Content           string     `db:"content"`
	PlatformMessageID string     `db:"platform_message_id"` // e.g. the Discord message id
	ReplyToID         *int64     `db:"reply_to_id"`         // the message (row id) this one answers
	Model             string     `db:"model"`               // the model that wrote an assistant message
	CreatedAt         time.Time  `db:"created_at"`
	ArchivedAt        *time.Time `db:"archived_at"` // set once summarised; archived rows leave the context
	// MemoryID is the summary that archived it. No foreign key: a summary
	// forgotten (ForgetMemoriesByKey) and then purged leaves the number,
	// which names nothing, since summary ids are never reused; DeleteMemory,
	// which brings a summary's messages back, clears it.
	MemoryID *int64 `db:"memory_id"`
	Tokens   *int   `db:"tokens"`
}

// MessageParams describes a message to insert.
type MessageParams struct {
	SessionID         int64  // required
	Role              string // required: RoleUser, RoleAssistant or RoleSystem
	AuthorID          string
	AuthorName        string
	Content           string
	PlatformMessageID string
	ReplyToID         *int64
	// ReplyToPlatformID is the platform id of the message a user's
	// message replied to, if any.
	ReplyToPlatformID string
	Model             string
	CreatedAt         time.Time // zero means now
	Tokens            *int
}

const messageColumns = "id, session_id, role, author_id, author_name, content, platform_message_id, " +
	"reply_to_id, model, created_at, archived_at, memory_id, tokens"

// InsertMessage stores a message and returns the stored row.
func InsertMessage(ctx context.Context, q Querier, p MessageParams) (Message, error) {
	rows, err := q.Query(ctx, `
INSERT INTO messages (session_id, role, author_id, author_name, content, platform_message_id,
                      reply_to_id, model, created_at, tokens, reply_to_platform_id)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
RETURNING `+messageColumns,
		p.SessionID, p.Role, p.AuthorID, p.AuthorName, p.Content, p.PlatformMessageID,
		p.ReplyToID, p.Model, utcOrNow(p.CreatedAt), p.Tokens, p.ReplyToPlatformID)
	if err != nil {
		return Message{}, fmt.Errorf("insert message in session %d: %w", p.SessionID, err)
	}
	m, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Message])
	if err != nil {
		return Message{}, fmt.Errorf("insert message in session %d: %w", p.SessionID, interpretError(err))
	}
	return m, nil
}

const recentMessagesByKey = `
SELECT * FROM (
    SELECT ` + messageColumns + ` FROM messages
    WHERE session_id = (SELECT id FROM sessions WHERE key = $1) AND archived_at IS NULL
    ORDER BY created_at DESC, id DESC
    LIMIT $2
) recent ORDER BY created_at, id`

// QueueRecentMessagesByKey queues on b up to limit of the newest unarchived
// messages of the session with key, oldest first, into dst (through
// messages_session_recent_idx); a session that does not exist yet has no
// messages.
func QueueRecentMessagesByKey(b *Batch, key string, limit int, dst *[]Message) {
	queueRows(b, "recent messages of session "+key, dst, recentMessagesByKey, key, limit)
}

// SetReplyPlatformID stores the platform id of the reply to the user message
// platformMessageID in session key: the reply is known only once the adapter
// has sent it, after the turn was stored. It returns the ids of the replies
// it changed; ErrNotFound when there is no such reply. origin tags the
// change's notice (see CommitWithoutFlush); "" for none.
func SetReplyPlatformID(ctx context.Context, q Querier, origin, key, platformMessageID, replyID string) ([]int64, error) {
	// The user message is found through messages_platform_ids_idx (as the
	// reply chain finds it), its reply through messages_reply_to_id_idx:
	// a plain comparison on platform_message_id would read the whole table.
	// The tag is set within the statement, before its trigger runs.
	rows, err := q.Query(ctx, turnQuestion+`,
tag AS (SELECT set_config('yorozu.origin', $4, true))
UPDATE messages AS r SET platform_message_id = $3
FROM u, tag WHERE r.reply_to_id = u.id AND r.role = 'assistant'
RETURNING r.id`, key, platformMessageID, replyID, origin)
	var ids []int64
	if err == nil {
		ids, err = pgx.CollectRows(rows, pgx.RowTo[int64])
	}
	if err == nil && len(ids) == 0 {
		err = ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("set reply id of message %s in session %q: %w", platformMessageID, key, err)
	}
	return ids, nil
}

// SessionMessages returns up to limit of the newest messages of a session,
// archived ones included, oldest first (history and exports).
func SessionMessages(ctx context.Context, q Querier, sessionID int64, limit int) ([]Message, error) {
	return SessionMessagesBefore(ctx, q, sessionID, 0, limit)
}

// SessionMessagesBefore is SessionMessages for the messages older than the
// message before (a row id; 0: from the newest): keyset pages through
// messages_session_idx, each as quick however deep it goes.
func SessionMessagesBefore(ctx context.Context, q Querier, sessionID, before int64, limit int) ([]Message, error) {
	cursor := ""
	if before > 0 {
		cursor = "AND (created_at, id) < (SELECT created_at, id FROM messages WHERE id = $3)"
	} else {
		cursor = "AND $3 = 0"
	}
	rows, err := q.Query(ctx, `SELECT * FROM (
    SELECT `+messageColumns+` FROM messages WHERE session_id = $1 `+cursor+`
    ORDER BY created_at DESC, id DESC LIMIT $2
) m ORDER BY created_at, id`, sessionID, limit, before)
	if err != nil {
		return nil, fmt.Errorf("messages of session %d before %d: %w", sessionID, before, err)
	}
	ms, err := pgx.CollectRows(rows, pgx.RowToStructByName[Message])
	if err != nil {
		return nil, fmt.Errorf("messages of session %d before %d: %w", sessionID, before, err)
	}
	return ms, nil
}

// ImportedMessage is one message of an imported conversation.
type ImportedMessage struct {
	Role       string
	AuthorName string
	Content    string
	Model      string
	CreatedAt  time.Time
	Archived   bool
}

// ImportMessages adds messages to a session in one statement, keeping
// their times; archived ones stay archived (at their own time).
func ImportMessages(ctx context.Context, q Querier, sessionID int64, ms []ImportedMessage) error {
	n := len(ms)
	roles, names, contents, models := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	ats, archived := make([]time.Time, n), make([]bool, n)
	for i, m := range ms {
		roles[i], names[i], contents[i], models[i] = m.Role, m.AuthorName, m.Content, m.Model
		ats[i], archived[i] = utcOrNow(m.CreatedAt), m.Archived
	}
	if _, err := q.Exec(ctx, `
INSERT INTO messages (session_id, role, author_name, content, model, created_at, archived_at)
SELECT $1, m.role, m.name, m.content, m.model, m.at, CASE WHEN m.archived THEN m.at END
FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[], $7::bool[])
     AS m(role, name, content, model, at, archived)`, sessionID, roles, names, contents, models, ats, archived); err != nil {
		return fmt.Errorf("import %d messages into session %d: %w", n, sessionID, err)
	}
	return nil
}
