package db

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
)

// This file holds the channel log (/channel log on): members' messages in
// logged channels, kept apart from conversations (0030_channel_log.sql).
//
// Retention deletes the oldest rows through the primary key, a batch at a
// time (DeleteChannelMessagesBefore): a Discord snowflake carries its
// creation time, so "older than the retention" is "message_id below the
// cutoff's snowflake", a range scan of the index the table already has.
// Time partitions would make retention a DROP, but they cannot keep
// message_id unique on its own (a partitioned table's unique keys must hold
// the partition key), and edits and deletions arrive by message id only.

// discordEpoch is the start of Discord's snowflakes, in Unix milliseconds.
const discordEpoch = 1420070400000

// SnowflakeAt returns the smallest Discord snowflake made at t: every
// message made before t has a smaller id.
func SnowflakeAt(t time.Time) int64 {
	ms := t.UnixMilli() - discordEpoch
	if ms < 0 {
		return 0
	}
	return ms << 22
}

// SnowflakeTime returns when the Discord snowflake id was made.
func SnowflakeTime(id int64) time.Time {
	return time.UnixMilli(id>>22 + discordEpoch).UTC()
}

// Kinds of author of a logged message.
const (
	AuthorMember  = "member"
	AuthorBot     = "bot"     // another bot
	AuthorWebhook = "webhook" // a webhook's message
	AuthorSelf    = "self"    // yorozu's own
)

// ChannelMessage is a row of channel_messages: one message of a logged
// channel or thread.
type ChannelMessage struct {
	MessageID   int64      `db:"message_id"`
	Space       string     `db:"space"` // "guild:<id>"
	GuildID     string     `db:"guild_id"`
	ChannelID   string     `db:"channel_id"`
	ParentID    string     `db:"parent_id"` // a thread's parent channel, else ""
	AuthorID    string     `db:"author_id"`
	AuthorName  string     `db:"author_name"`
	AuthorKind  string     `db:"author_kind"` // AuthorMember, AuthorBot, AuthorWebhook or AuthorSelf
	CreatedAt   time.Time  `db:"created_at"`
	Content     string     `db:"content"`
	ReplyToID   *int64     `db:"reply_to_id"`
	Attachments []string   `db:"attachments"` // file names
	EditedAt    *time.Time `db:"edited_at"`
}

// JumpLink is the Discord link that opens the message.
func (m ChannelMessage) JumpLink() string {
	return "https://discord.com/channels/" + m.GuildID + "/" + m.ChannelID + "/" + strconv.FormatInt(m.MessageID, 10)
}

const channelMessageColumns = "message_id, space, guild_id, channel_id, parent_id, author_id, author_name, author_kind, created_at, content, reply_to_id, attachments, edited_at"

// InsertChannelMessages stores ms in one statement; a message already
// stored (a gateway event delivered twice) is left as it is. It returns how
// many were new.
func InsertChannelMessages(ctx context.Context, q Querier, ms []ChannelMessage) (int64, error) {
	if len(ms) == 0 {
		return 0, nil
	}
	n := len(ms)
	ids, spaces, guilds, channels, parents := make([]int64, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	authors, names, kinds, contents := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	times := make([]time.Time, n)
	replies := make([]*int64, n)
	atts := make([]string, n) // each message's names, joined by newlines (a name holds none)
	edited := make([]*time.Time, n)
	for i, m := range ms {
		ids[i], spaces[i], guilds[i], channels[i], parents[i] = m.MessageID, m.Space, m.GuildID, m.ChannelID, m.ParentID
		authors[i], names[i], kinds[i], contents[i] = m.AuthorID, m.AuthorName, m.AuthorKind, m.Content
		if kinds[i] == "" {
			kinds[i] = AuthorMember
		}
		times[i], replies[i], edited[i] = m.CreatedAt.UTC(), m.ReplyToID, m.EditedAt
		atts[i] = strings.Join(m.Attachments, "\n")
	}
	tag, err := q.Exec(ctx, `
INSERT INTO channel_messages (`+channelMessageColumns+`)
SELECT u.id, u.space, u.guild, u.channel, u.parent, u.author, u.name, u.kind, u.at, u.content, u.reply,
       CASE WHEN u.atts = '' THEN '{}'::text[] ELSE string_to_array(u.atts, E'\n') END, u.edited
FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
            $9::timestamptz[], $10::text[], $11::bigint[], $12::text[], $13::timestamptz[])
     AS u(id, space, guild, channel, parent, author, name, kind, at, content, reply, atts, edited)
ON CONFLICT (message_id) DO NOTHING`,
		ids, spaces, guilds, channels, parents, authors, names, kinds, times, contents, replies, atts, edited)
	if err != nil {
		return 0, fmt.Errorf("insert %d channel messages (first %d): %w", n, ids[0], err)
	}
	return tag.RowsAffected(), nil
}

// ChannelMessageEdit is a logged message's new text (MESSAGE_UPDATE).
type ChannelMessageEdit struct {
	MessageID   int64
	Content     string
	Attachments []string
	EditedAt    time.Time
}

// EditChannelMessages applies es to the messages stored; an edit of a
// message not logged changes nothing.
func EditChannelMessages(ctx context.Context, q Querier, es []ChannelMessageEdit) error {
	if len(es) == 0 {
		return nil
	}
	ids, contents, atts, times := make([]int64, len(es)), make([]string, len(es)), make([]string, len(es)), make([]time.Time, len(es))
	for i, e := range es {
		ids[i], contents[i], atts[i], times[i] = e.MessageID, e.Content, strings.Join(e.Attachments, "\n"), e.EditedAt.UTC()
	}
	if _, err := q.Exec(ctx, `
UPDATE channel_messages c SET content = u.content,
       attachments = CASE WHEN u.atts = '' THEN '{}'::text[] ELSE string_to_array(u.atts, E'\n') END,
       edited_at = u.edited
FROM (SELECT DISTINCT ON (id) * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::timestamptz[]) WITH ORDINALITY AS x(id, content, atts, edited, n)
      ORDER BY id, n DESC) u
WHERE c.message_id = u.id`, ids, contents, atts, times); err != nil {
		return fmt.Errorf("edit %d channel messages (first %d): %w", len(es), ids[0], err)
	}
	return nil
}

// DeleteChannelMessages deletes the logged messages ids (MESSAGE_DELETE,
// MESSAGE_DELETE_BULK) and returns how many were logged.
func DeleteChannelMessages(ctx context.Context, q Querier, ids []int64) (int64, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	tag, err := q.Exec(ctx, "DELETE FROM channel_messages WHERE message_id = ANY($1)", ids)
	if err != nil {
		return 0, fmt.Errorf("delete %d channel messages (first %d): %w", len(ids), ids[0], err)
	}
	return tag.RowsAffected(), nil
}

// DeleteChannelLog deletes the log of channelID in guildID and of its
// threads (the channel deleted on Discord, or the admin page's delete) and
// returns how many messages it held.
func DeleteChannelLog(ctx context.Context, q Querier, guildID, channelID string) (int64, error) {
	tag, err := q.Exec(ctx, `DELETE FROM channel_messages WHERE guild_id = $1 AND (channel_id = $2 OR parent_id = $2)`, guildID, channelID)
	if err != nil {
		return 0, fmt.Errorf("delete channel log of %s/%s: %w", guildID, channelID, err)
	}
	return tag.RowsAffected(), nil
}

// ForgetChannelMessagesOf deletes every logged message authorID wrote in
// space (/forget me) and returns how many.
func ForgetChannelMessagesOf(ctx context.Context, q Querier, space, authorID string) (int64, error) {
	tag, err := q.Exec(ctx, "DELETE FROM channel_messages WHERE space = $1 AND author_id = $2", space, authorID)
	if err != nil {
		return 0, fmt.Errorf("forget channel messages of %s in %s: %w", authorID, space, err)
	}
	return tag.RowsAffected(), nil
}

// DeleteChannelMessagesBefore deletes up to limit of the oldest logged
// messages made before cutoff, through the primary key (see the top of this
// file), and returns how many; fewer than limit means none are left.
func DeleteChannelMessagesBefore(ctx context.Context, q Querier, cutoff time.Time, limit int) (int64, error) {
	tag, err := q.Exec(ctx, `
DELETE FROM channel_messages WHERE message_id IN (
    SELECT message_id FROM channel_messages WHERE message_id < $1 ORDER BY message_id LIMIT $2
)`, SnowflakeAt(cutoff), limit)
	if err != nil {
		return 0, fmt.Errorf("delete channel messages before %s: %w", cutoff.Format(time.RFC3339), err)
	}
	return tag.RowsAffected(), nil
}

// ChannelLogSetting is a place whose log is set: a channel, a thread, or a
// server's channels (ChannelID "").
type ChannelLogSetting struct {
	GuildID   string `db:"guild_id"`
	ChannelID string `db:"channel_id"`
	ParentID  string `db:"parent_id"`
	Log       bool   `db:"log"`
}

// SetChannelLog turns the log of channelID in guildID on or off (nil: set
// nothing here, inherit), creating its settings row if needed. parentID is
// a thread's parent channel ("" keeps what is stored).
func SetChannelLog(ctx context.Context, q Querier, guildID, channelID, parentID string, on *bool, by string) error {
	if guildID == "" {
		return fmt.Errorf("set channel log of %s: not a server's channel", channelID)
	}
	if _, err := q.Exec(ctx, `
INSERT INTO channel_settings (guild_id, channel_id, parent_id, log, updated_by, updated_at)
VALUES ($1, $2, $3, $4, $5, now())
ON CONFLICT (guild_id, channel_id) DO UPDATE SET
    parent_id  = COALESCE(NULLIF(EXCLUDED.parent_id, ''), channel_settings.parent_id),
    log        = EXCLUDED.log,
    updated_by = EXCLUDED.updated_by,
    updated_at = EXCLUDED.updated_at`, guildID, channelID, parentID, on, by); err != nil {
		return fmt.Errorf("set channel log of %s/%s: %w", guildID, channelID, err)
	}
	return nil
}

// ChannelLogSettings lists every place whose log is set on or off.
func ChannelLogSettings(ctx context.Context, q Querier) ([]ChannelLogSetting, error) {
	rows, err := q.Query(ctx, `SELECT guild_id, channel_id, parent_id, log FROM channel_settings WHERE log IS NOT NULL AND guild_id <> ''`)
	if err != nil {
		return nil, fmt.Errorf("channel log settings: %w", err)
	}
	ss, err := pgx.CollectRows(rows, pgx.RowToStructByName[ChannelLogSetting])
	if err != nil {
		return nil, fmt.Errorf("channel log settings: %w", err)
	}
	return ss, nil
}

// ChannelLogOn resolves whether channelID (a thread when parentID is set)
// of guildID is logged, from ss: the nearest place that sets it wins (the
// thread, its parent channel, the server); off when none does.
func ChannelLogOn(ss []ChannelLogSetting, guildID, channelID, parentID string) bool {
	var server, parent, own *bool
	for i := range ss {
		s := &ss[i]
		if s.GuildID != guildID {
			continue
		}
		switch {
		case s.ChannelID == channelID && channelID != "":
			own = &s.Log
		case s.ChannelID == parentID && parentID != "":
			parent = &s.Log
		case s.ChannelID == "":
			server = &s.Log
		}
	}
	for _, p := range []*bool{own, parent, server} {
		if p != nil {
			return *p
		}
	}
	return false
}

// ChannelLogCount is one channel's log as the admin page lists it: a
// channel that is logged or has logged messages, with its threads' counted
// in.
type ChannelLogCount struct {
	GuildID   string     `db:"guild_id"`
	ChannelID string     `db:"channel_id"`
	On        bool       `db:"on"`
	Messages  int64      `db:"messages"`
	Newest    *time.Time `db:"newest"`
}

// ChannelLogCounts lists every channel (not thread) that is logged or has
// logged messages, with how many, by server.
func ChannelLogCounts(ctx context.Context, q Querier) ([]ChannelLogCount, error) {
	rows, err := q.Query(ctx, `
WITH counts AS (
    SELECT guild_id, COALESCE(NULLIF(parent_id, ''), channel_id) AS channel_id, count(*) AS messages, max(created_at) AS newest
    FROM channel_messages GROUP BY 1, 2
), set AS (
    SELECT guild_id, channel_id, log FROM channel_settings WHERE log AND guild_id <> '' AND channel_id <> '' AND parent_id = ''
)
SELECT COALESCE(c.guild_id, s.guild_id) AS guild_id, COALESCE(c.channel_id, s.channel_id) AS channel_id,
       COALESCE(s.log, false) AS on, COALESCE(c.messages, 0) AS messages, c.newest
FROM counts c FULL JOIN set s ON s.guild_id = c.guild_id AND s.channel_id = c.channel_id
ORDER BY 1, 2`)
	if err != nil {
		return nil, fmt.Errorf("channel log counts: %w", err)
	}
	cs, err := pgx.CollectRows(rows, pgx.RowToStructByName[ChannelLogCount])
	if err != nil {
		return nil, fmt.Errorf("channel log counts: %w", err)
	}
	return cs, nil
}

// ChannelLogQuery is what SearchChannelLog looks for. Zero fields do not
// narrow.
type ChannelLogQuery struct {
	Space string // only this space's logs are searched; required unless AnySpace
	// AnySpace searches every space's logs: the admin page's search only.
	AnySpace bool
	// Query is words, each found, any case: a Japanese word of two
	// characters or more anywhere (one character only where it stands
	// alone), an ASCII word at the start of a word (dock: docker); ""
	// matches all.
	Query     string
	ChannelID string // a channel (its threads included) or a thread
	// Author is the author's id, or their name: a whole word of it, or
	// two characters or more of a Japanese name (taro, 田中; not tar).
	Author string
	Since  time.Time
	Until  time.Time
	Limit  int // at most this many hits (default 20)
	Offset int // hits skipped (a later page)
}

// SearchChannelLog returns the logged messages of q.Space that match q,
// newest first. The words, the member and the channel are looked up
// together in the terms index (0031_channel_log_terms.sql: the words as
// the admin search's two-character terms, see 0021_chat_app.sql), so that
// the index's intersection does the narrowing, and the candidates are then
// checked for the words as substrings. Without words or a member, a
// channel's messages are read through its own index, newest first.
func SearchChannelLog(ctx context.Context, qr Querier, q ChannelLogQuery) ([]ChannelMessage, error) {
	if q.Space == "" && !q.AnySpace {
		return nil, fmt.Errorf("search channel log: no space")
	}
	if q.Limit <= 0 {
		q.Limit = 20
	}
	words := strings.Fields(q.Query)
	var terms, names []string
	var oldest int64
	if len(words) > 0 || q.Author != "" {
		if err := qr.QueryRow(ctx, `SELECT yorozu_search_terms($1), yorozu_search_terms($2), coalesce((SELECT min(message_id) FROM channel_messages), 0)`,
			q.Query, q.Author).Scan(&terms, &names, &oldest); err != nil {
			return nil, fmt.Errorf("search channel log of %s for %q: %w", q.Space, q.Query, err)
		}
		if len(words) > 0 && len(terms) == 0 {
			return nil, nil // only punctuation: nothing to look up
		}
	}
	// $1 is the lower bound of the window (see below).
	args := []any{int64(0)}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	var where []string
	if !q.AnySpace {
		where = append(where, "space = "+arg(q.Space))
	}
	if len(words) > 0 {
		likes := make([]string, len(words))
		for i, w := range words {
			likes[i] = "%" + escapeLike(w) + "%"
		}
		where = append(where, "content ILIKE ALL ("+arg(likes)+")")
	}
	if q.Author != "" {
		where = append(where, "(author_id = "+arg(q.Author)+" OR author_name ILIKE "+arg("%"+escapeLike(q.Author)+"%")+")")
	}
	if !q.Since.IsZero() {
		where = append(where, "message_id >= "+arg(SnowflakeAt(q.Since)))
	}
	if !q.Until.IsZero() {
		where = append(where, "message_id < "+arg(SnowflakeAt(q.Until)))
	}
	cond := func(extra ...string) string {
		return strings.Join(append(append([]string{"message_id > $1"}, where...), extra...), " AND ")
	}
	page := " ORDER BY message_id DESC LIMIT " + arg(q.Limit) + " OFFSET " + arg(q.Offset)
	if len(words) == 0 && q.Author == "" {
		if q.ChannelID == "" {
			return searchChannelLog(ctx, qr, q, "SELECT "+channelMessageColumns+" FROM channel_messages WHERE "+cond()+page, args)
		}
		// The channel's rows and its threads', each newest first through
		// its own index, merged: an OR of the two would walk the whole
		// log backwards for a quiet channel.
		c, n := arg(q.ChannelID), arg(q.Limit+q.Offset)
		return searchChannelLog(ctx, qr, q, "SELECT "+channelMessageColumns+" FROM (\n"+
			"(SELECT * FROM channel_messages WHERE "+cond("channel_id = "+c)+" ORDER BY message_id DESC LIMIT "+n+")\nUNION ALL\n"+
			"(SELECT * FROM channel_messages WHERE "+cond("parent_id = "+c, "parent_id <> ''")+" ORDER BY message_id DESC LIMIT "+n+")\n"+
			") m"+page, args)
	}
	tsq := make([]string, 0, len(terms)+3)
	for _, t := range indexTerms(coverTerms(terms), words) {
		tsq = append(tsq, lexeme(t, isASCIIWord(t)))
	}
	if q.Author != "" {
		author := lexeme("~"+q.Author, false)
		if len(names) > 0 {
			ns := make([]string, len(names))
			for i, n := range names {
				ns[i] = lexeme("~"+n, false) // a prefix of a name can be many names' (see BenchmarkChannelLog)
			}
			author = "(" + author + " | " + strings.Join(ns, " & ") + ")"
		}
		tsq = append(tsq, author)
	}
	if q.ChannelID != "" {
		p := arg(q.ChannelID)
		where = append(where, "(channel_id = "+p+" OR parent_id = "+p+")")
		tsq = append(tsq, lexeme("#"+q.ChannelID, false))
	}
	if !q.AnySpace && q.ChannelID == "" {
		// A channel id is Discord's, unique across servers: it names the
		// space already, whose term is in every row of the server.
		tsq = append(tsq, lexeme("@"+q.Space, false))
	}
	tsquery := strings.Join(tsq, " & ")
	query := arg(tsquery)
	if n := walkRows(q); n > 0 && q.ChannelID == "" && q.Author == "" {
		// A word that many of the server's messages hold (a word in 3 %
		// of them is one row in 30 of the server's, 300 of a log of ten
		// servers) is found soonest among the newest rows: they are
		// read back through the primary key, each checked, at most n of
		// them (the inner LIMIT, which only the primary key serves, so
		// the planner has no other way). Looking the terms up in the
		// index instead reads the whole posting lists of the word and of
		// the server's term before the newest can be picked. A word
		// sparse among the newest rows costs this bounded walk and goes
		// on below. The walk's hits are the lookup's: the same
		// conditions, newest first. Narrowed to a channel or a member,
		// the index's intersection is the short way.
		bounds := []string{"message_id > $1"}
		for _, w := range where {
			if strings.HasPrefix(w, "message_id ") {
				bounds = append(bounds, w)
			}
		}
		walkArgs := append(slices.Clone(args), n) // the statements below have no such argument
		// The terms are checked first, on their own (OFFSET 0 keeps the
		// planner from merging the two filters and checking the words
		// as substrings first, three times as long).
		walk := "SELECT " + channelMessageColumns + " FROM (SELECT * FROM (SELECT * FROM channel_messages WHERE " + strings.Join(bounds, " AND ") +
			" ORDER BY message_id DESC LIMIT $" + strconv.Itoa(len(walkArgs)) + ") w WHERE terms @@ " + query + "::tsquery OFFSET 0) m WHERE " + cond() + page
		ms, err := searchChannelLog(ctx, qr, q, walk, walkArgs)
		if err != nil || len(ms) >= q.Limit {
			return ms, err
		}
	}
	// Terms that few messages hold are looked up once, whole: the first
	// statement takes up to one more candidate than few from the index and
	// checks them when they are no more. Nothing found there is either no
	// hit or too many candidates, which a count tells apart. Terms that
	// many hold would match so many rows that sorting them all would take
	// long: the newest day is searched first, then eight times further
	// back each time, until enough are found or the log's oldest message
	// is passed. Either way the candidates come from the terms index
	// (MATERIALIZED), so the planner cannot choose to walk a server's
	// whole log backwards for a rare word.
	few := strconv.Itoa(searchSizes.few)
	ms, err := searchChannelLog(ctx, qr, q, "WITH c AS MATERIALIZED (SELECT message_id FROM channel_messages WHERE terms @@ "+query+
		"::tsquery LIMIT "+few+" + 1)\nSELECT "+channelMessageColumns+" FROM channel_messages JOIN c USING (message_id) WHERE "+
		"(SELECT count(*) FROM c) <= "+few+" AND "+cond()+page, args)
	if err != nil || len(ms) > 0 {
		return ms, err
	}
	var candidates int
	if err := qr.QueryRow(ctx, "SELECT count(*) FROM (SELECT FROM channel_messages WHERE terms @@ $1::tsquery LIMIT $2) c",
		pgx.QueryExecModeExec, tsquery, searchSizes.few+1).Scan(&candidates); err != nil {
		return nil, fmt.Errorf("search channel log of %s for %q: %w", q.Space, q.Query, err)
	}
	if candidates <= searchSizes.few {
		return nil, nil
	}
	sql := "WITH c AS MATERIALIZED (SELECT message_id FROM channel_messages WHERE terms @@ " + query +
		"::tsquery AND message_id > $1)\nSELECT " + channelMessageColumns + " FROM channel_messages JOIN c USING (message_id) WHERE " +
		cond() + page
	hi := time.Now().Add(time.Hour)
	if !q.Until.IsZero() {
		hi = q.Until
	}
	for window := 24 * time.Hour; ; window *= 8 {
		from := SnowflakeAt(hi.Add(-window))
		last := from <= oldest || window > 50*365*24*time.Hour || !q.Since.IsZero() && from < SnowflakeAt(q.Since)
		args[0] = from
		if last {
			args[0] = int64(0)
		}
		ms, err := searchChannelLog(ctx, qr, q, sql, args)
		if err != nil || last || len(ms) >= q.Limit {
			return ms, err
		}
	}
}

// searchSizes are the sizes by which SearchChannelLog chooses how to
// look (a variable so that a test can send a small log down each way).
var searchSizes = struct {
	// few is how many messages holding a search's terms are few enough
	// to be checked all at once.
	few int
	// walk is how many of the newest rows a search not narrowed to a
	// channel or member reads back per hit it wants, before it turns to
	// the index: a page of 10 from 10,000 rows finds a word in one of
	// 1,000 rows of the log (a word in 3 % of the messages of one of ten
	// servers is one in 330, and rows with a word come in runs). A word
	// it does not find costs the whole walk: 5–20 ms.
	walk int
}{few: 200, walk: 1000}

// walkRows is how many of the newest rows a search for q reads back
// first; beyond 50,000 (tens of milliseconds) the index is the quicker.
func walkRows(q ChannelLogQuery) int {
	return min(50_000, searchSizes.walk*(q.Limit+q.Offset))
}

// coverTerms returns terms without the two-character terms that their
// neighbours cover: of 東京タワー's 東京, 京タ, タワ and ワー, 京タ goes
// (東京 and タワ hold its characters in turn) and so does ワー (タワ and
// the next term, ーっ of 東京タワーって). Every term is in each row holding
// the words, so fewer only widen the candidates, which are then checked
// for the words as substrings; but each term in a lookup is a posting
// list read, and a phrase of common characters holds many (a phrase of
// ten characters: 9 lists, 5 after this).
func coverTerms(terms []string) []string {
	// ends[r] / starts[r]: how many kept two-character terms end / start with r.
	ends, starts := map[rune]int{}, map[rune]int{}
	pair := func(t string) (rune, rune, bool) {
		rs := []rune(t)
		if len(rs) != 2 || isASCIIWord(t) {
			return 0, 0, false
		}
		return rs[0], rs[1], true
	}
	for _, t := range terms {
		if a, b, ok := pair(t); ok {
			starts[a]++
			ends[b]++
		}
	}
	out := make([]string, 0, len(terms))
	for _, t := range terms {
		a, b, ok := pair(t)
		self := 0
		if a == b {
			self = 1 // 「ああ」 neither ends nor starts another by itself
		}
		if ok && ends[a]-self > 0 && starts[b]-self > 0 {
			starts[a]--
			ends[b]--
			continue
		}
		out = append(out, t)
	}
	return out
}

// indexTerms returns terms without the single non-ASCII characters that
// came out of a longer word of the query (時 of 10時), when others are left.
// A message's terms hold a character on its own only where it stands alone
// (時 of 10時, の of BBQの, between ASCII and the end), else as the pairs it
// is part of (時で of 10時です), so the index cannot find such a character;
// the candidates that the other terms find are checked for the words as
// substrings anyway. A character the query gives as a word of its own (猫
// of 「ラーメン 猫」) stays a term: it finds the messages where it stands
// alone, and it keeps a common word beside it from walking the whole log.
// A query of only such characters (雨) keeps them all.
func indexTerms(terms, words []string) []string {
	out := make([]string, 0, len(terms))
	for _, t := range terms {
		if utf8.RuneCountInString(t) > 1 || isASCIIWord(t) || slices.Contains(words, t) {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return terms
	}
	return out
}

// lexeme is term t quoted for a tsquery; prefix matches the words that
// begin with it (tok finds tokyo).
func lexeme(t string, prefix bool) string {
	l := "'" + strings.NewReplacer(`\`, `\\`, `'`, `''`).Replace(t) + "'"
	if prefix {
		l += ":*"
	}
	return l
}

// escapeLike escapes s for a LIKE pattern.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// searchChannelLog runs one search statement, unprepared: a cached
// generic plan does not know the words, and may walk the whole log
// backwards for a rare one (seconds at a million rows) where the plan
// made for them reads the terms index (milliseconds).
func searchChannelLog(ctx context.Context, qr Querier, q ChannelLogQuery, sql string, args []any) ([]ChannelMessage, error) {
	rows, err := qr.Query(ctx, sql, append([]any{pgx.QueryExecModeExec}, args...)...)
	if err != nil {
		return nil, fmt.Errorf("search channel log of %s for %q: %w", q.Space, q.Query, err)
	}
	ms, err := pgx.CollectRows(rows, pgx.RowToStructByName[ChannelMessage])
	if err != nil {
		return nil, fmt.Errorf("search channel log of %s for %q: %w", q.Space, q.Query, err)
	}
	return ms, nil
}

// ChannelLogged reports whether channelID (a channel or thread) has logged
// messages in space.
func ChannelLogged(ctx context.Context, q Querier, space, channelID string) (bool, error) {
	var ok bool
	if err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM channel_messages WHERE space = $1 AND (channel_id = $2 OR parent_id = $2))`,
		space, channelID).Scan(&ok); err != nil {
		return false, fmt.Errorf("channel %s logged in %s: %w", channelID, space, err)
	}
	return ok, nil
}

// ID is the message's Discord id as text.
func (m ChannelMessage) ID() string { return strconv.FormatInt(m.MessageID, 10) }
