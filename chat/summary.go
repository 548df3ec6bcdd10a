package chat

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/memory"
)

// ChannelMessage is one message of a channel's talk as a MessageSource
// reads it: plain values, whatever the platform.
type ChannelMessage struct {
	ID string
	// ChannelID is the channel or thread it was written in, when not the
	// one summarised (a thread's message in its parent channel's log), so
	// that its link opens it there.
	ChannelID string
	Author    string // the name shown; "" when the platform gave none
	Bot       bool   // a bot or a webhook, labelled as such
	At        time.Time
	Text      string
	// Attachments are the names of the files sent with it; Stickers the
	// names of its stickers; Embeds the number of its embeds. A message of
	// only these is still something that was said.
	Attachments []string
	Stickers    []string
	Embeds      int
}

// MessageSource reads what was said in a channel in a period; the Discord
// adapter reads the channel's history.
type MessageSource interface {
	// ChannelMessages returns the messages of channelID (of guildID, "" in
	// a DM) written from since
	// up to until (zero: now), oldest first: the newest limit of them, with
	// truncated set when older ones of the period were left out. An error
	// matching ErrHistoryForbidden means the channel may not be read.
	ChannelMessages(ctx context.Context, guildID, channelID string, since, until time.Time, limit int) (msgs []ChannelMessage, truncated bool, err error)
}

// ErrHistoryForbidden is what a MessageSource returns for a channel whose
// history yorozu may not read (Discord's Read Message History missing).
var ErrHistoryForbidden = errors.New("channel history forbidden")

// Summary defaults.
const (
	// DefaultSummaryMessages is the most messages a summary reads.
	DefaultSummaryMessages = 500
	// summaryLineRunes is the most characters of one message the model
	// sees: a 4,000-character message is cut, its point is at its start.
	summaryLineRunes = 600
	// summaryReplyRunes is the most characters of the answer: two Discord
	// messages, as the adapters split a long answer; a summary's links
	// take room.
	summaryReplyRunes = 4000
)

// Summarizer summarises a channel's talk in a period: Japanese bullet
// points grouped by topic, decisions and open questions called out, each
// point with a jump link to where it was said. The model cites messages by
// short numbers; the links are made here from the numbers, never taken
// from the model. A period longer than the budget is summarised in parts,
// then the parts' notes are combined.
type Summarizer struct {
	Source   MessageSource // required
	Pipeline Pipeline      // required
	Model    string
	// Budget is the tokens one model call may be given
	// (CONTEXT_TOKEN_BUDGET); default 6000.
	Budget int
	// MaxMessages is the most messages read; default
	// DefaultSummaryMessages.
	MaxMessages int
	Location    *time.Location // for the times shown; default time.Local
	Logger      *slog.Logger
}

const summarySystem = "あなたはDiscordのチャンネルの会話を要約します。各メッセージは [番号] 時刻 発言者: 本文 の形で渡されます。" +
	"日本語の箇条書きで、話題ごとに見出し（**話題名**）を付けてまとめてください。" +
	"決まったことは「✅ 決定:」、未解決の問いや確認待ちは「❓ 未解決:」で始まる項目として明記してください。" +
	"各項目の末尾に、根拠となるメッセージの番号を [12] のように角括弧で書いてください（複数なら [12][15]）。" +
	"URLは書かないこと。会話にないことを足さないこと。項目は全体で10個程度まで、簡潔に。"

const summaryPartSystem = "あなたはDiscordのチャンネルの会話の一部をメモにまとめます。各メッセージは [番号] 時刻 発言者: 本文 の形で渡されます。" +
	"話題ごと、決まったこと、未解決の問いを日本語の短い箇条書きにし、各項目の末尾に根拠のメッセージ番号を [12] のように書いてください。" +
	"番号は渡されたものをそのまま使うこと。URLは書かないこと。"

const summaryCombineSystem = "次は一つのチャンネルの会話を時間順に分けて要約したメモです。これらを一つの要約にまとめてください。" +
	"日本語の箇条書きで、話題ごとに見出し（**話題名**）を付け、決まったことは「✅ 決定:」、未解決の問いは「❓ 未解決:」で始まる項目として明記してください。" +
	"メモにある [番号] は各項目の末尾にそのまま残してください。URLは書かないこと。項目は全体で10個程度まで、簡潔に。"

// Summarize summarises channelID of guildID ("" in a DM) from since to
// until (zero: now), reporting progress (the model call about to be made,
// of how many) through progress when it is not nil. An answer that is no
// summary but what the user must read for what they asked (nothing said,
// a history yorozu may not read) comes back as text with summarised false
// and a nil error; an error is a failure the user can only retry.
func (s *Summarizer) Summarize(ctx context.Context, guildID, channelID string, since, until time.Time, progress func(done, total int)) (text string, summarised bool, err error) {
	limit := s.MaxMessages
	if limit <= 0 {
		limit = DefaultSummaryMessages
	}
	msgs, truncated, err := s.Source.ChannelMessages(ctx, guildID, channelID, since, until, limit)
	if errors.Is(err, ErrHistoryForbidden) {
		return fmt.Sprintf("<#%s> の履歴を読めません。yorozu に「メッセージ履歴を読む」（Read Message History）と「チャンネルを見る」の権限を付けてください。", channelID), false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read channel %s for a summary: %w", channelID, err)
	}
	lines := s.lines(msgs)
	if len(lines) == 0 {
		return fmt.Sprintf("<#%s> には%sからのメッセージがありません。", channelID, s.when(since)), false, nil
	}
	text, err = s.reduce(ctx, lines, progress)
	if err != nil {
		return "", false, fmt.Errorf("summarise channel %s: %w", channelID, err)
	}
	header := fmt.Sprintf("**<#%s> の要約**（%s〜・%d件", channelID, s.when(since), len(lines))
	if truncated {
		header += fmt.Sprintf("、直近%d件まで", limit)
	}
	header += "）\n"
	return fitReply(header + linkCitations(text, guildID, channelID, msgs)), true, nil
}

// sourceNoter is a MessageSource that can say what it reads (LogSource).
type sourceNoter interface {
	Note(ctx context.Context, guildID, channelID string) string
}

// DigestNote says, in a sentence for the user, where a digest of
// channelID will read from; "" when the source cannot say.
func (s *Summarizer) DigestNote(ctx context.Context, guildID, channelID string) string {
	if n, ok := s.Source.(sourceNoter); ok {
		return n.Note(ctx, guildID, channelID)
	}
	return ""
}

// digestRunes is the most characters of a digest: one Discord message.
const digestRunes = 2000

// Digest summarises channelID of guildID from since to until for a
// scheduled digest, as Summarize does, in one Discord message. A period in
// which members (not bots) wrote fewer than minMessages messages is quiet:
// no model call, nothing to post, and quiet says so. A channel yorozu may
// not read is an error matching ErrHistoryForbidden.
func (s *Summarizer) Digest(ctx context.Context, guildID, channelID string, since, until time.Time, minMessages int) (text, quiet string, err error) {
	limit := s.MaxMessages
	if limit <= 0 {
		limit = DefaultSummaryMessages
	}
	msgs, truncated, err := s.Source.ChannelMessages(ctx, guildID, channelID, since, until, limit)
	if err != nil {
		return "", "", fmt.Errorf("read channel %s for a digest: %w", channelID, err)
	}
	lines := s.lines(msgs)
	said := 0
	for _, m := range msgs {
		if !m.Bot {
			said++
		}
	}
	if said < minMessages {
		return "", fmt.Sprintf("quiet: %d member messages since %s, fewer than %d", said, since.UTC().Format(time.RFC3339), minMessages), nil
	}
	body, err := s.reduce(ctx, lines, nil)
	if err != nil {
		return "", "", fmt.Errorf("summarise channel %s for a digest: %w", channelID, err)
	}
	header := fmt.Sprintf("**<#%s> のまとめ**（%s〜・%d件", channelID, s.when(since), len(lines))
	if truncated {
		header += fmt.Sprintf("、直近%d件まで", limit)
	}
	header += "）\n"
	return fitRunes(header+linkCitations(body, guildID, channelID, msgs), digestRunes), "", nil
}

// lines are the messages as the model reads them, numbered from 1 by
// their place in msgs; a message with nothing to show is left out.
func (s *Summarizer) lines(msgs []ChannelMessage) []string {
	loc := s.loc()
	out := make([]string, 0, len(msgs))
	var b strings.Builder
	for i, m := range msgs {
		b.Reset()
		text := strings.Join(strings.Fields(m.Text), " ")
		if utf8.RuneCountInString(text) > summaryLineRunes {
			r := []rune(text)
			text = string(r[:summaryLineRunes]) + "…"
		}
		var extra []string
		if len(m.Attachments) > 0 {
			extra = append(extra, "添付: "+strings.Join(m.Attachments, "、"))
		}
		if len(m.Stickers) > 0 {
			extra = append(extra, "スタンプ: "+strings.Join(m.Stickers, "、"))
		}
		if m.Embeds > 0 {
			extra = append(extra, fmt.Sprintf("埋め込み%d件", m.Embeds))
		}
		if text == "" && len(extra) == 0 {
			continue
		}
		author := m.Author
		if author == "" {
			author = "（不明なメンバー）"
		}
		if m.Bot {
			author += "（bot）"
		}
		b.WriteByte('[')
		b.WriteString(strconv.Itoa(i + 1))
		b.WriteString("] ")
		b.WriteString(m.At.In(loc).Format("01/02 15:04"))
		b.WriteByte(' ')
		b.WriteString(author)
		b.WriteString(": ")
		b.WriteString(text)
		if len(extra) > 0 {
			if text != "" {
				b.WriteByte(' ')
			}
			b.WriteString("（" + strings.Join(extra, "・") + "）")
		}
		out = append(out, b.String())
	}
	return out
}

// reduce summarises lines in one call when they fit the budget; else in
// parts, whose notes are combined (in rounds, should the notes themselves
// not fit).
func (s *Summarizer) reduce(ctx context.Context, lines []string, progress func(done, total int)) (string, error) {
	budget := s.partBudget()
	parts := chunk(lines, budget)
	if len(parts) == 1 {
		report(progress, 1, 1)
		return s.call(ctx, summarySystem, parts[0])
	}
	total := len(parts) + 1 // an estimate: the combining round is one call unless the notes overflow
	done := 0
	notes := make([]string, 0, len(parts))
	for _, p := range parts {
		done++
		report(progress, done, total)
		n, err := s.call(ctx, summaryPartSystem, p)
		if err != nil {
			return "", err
		}
		notes = append(notes, n)
	}
	for {
		groups := chunk(notes, budget)
		if len(groups) == 1 {
			done++
			report(progress, done, max(total, done))
			return s.call(ctx, summaryCombineSystem, groups[0])
		}
		total += len(groups)
		next := make([]string, 0, len(groups))
		for _, g := range groups {
			done++
			report(progress, done, total)
			n, err := s.call(ctx, summaryCombineSystem, g)
			if err != nil {
				return "", err
			}
			next = append(next, n)
		}
		if len(next) >= len(notes) {
			// Notes that do not shrink would loop: combine what fits.
			return s.call(ctx, summaryCombineSystem, groups[0])
		}
		notes = next
	}
}

func report(progress func(done, total int), done, total int) {
	if progress != nil {
		progress(done, total)
	}
}

// call asks the model once, with no tools.
func (s *Summarizer) call(ctx context.Context, system string, lines []string) (string, error) {
	res, err := s.Pipeline.Run(ctx, llm.Request{Model: s.Model, Messages: []api.Message{
		{Role: "system", Content: system},
		{Role: "user", Content: strings.Join(lines, "\n")},
	}}, func(llm.Event) error { return nil })
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(res.Content), nil
}

// partBudget is the tokens of messages one call is given: the budget less
// the system text and room for the answer.
func (s *Summarizer) partBudget() int {
	b := s.Budget
	if b <= 0 {
		b = 6000
	}
	return max(b*2/3-memory.EstimateTokens(summarySystem), 200)
}

// chunk cuts lines into runs of at most budget tokens each (a line longer
// than the budget is a run of its own).
func chunk(lines []string, budget int) [][]string {
	var out [][]string
	var cur []string
	used := 0
	for _, l := range lines {
		t := memory.EstimateTokens(l) + 1
		if len(cur) > 0 && used+t > budget {
			out = append(out, cur)
			cur, used = nil, 0
		}
		cur = append(cur, l)
		used += t
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// citation is a model's reference to messages, with the space before it:
// [12], [12, 15], [12、15].
var citation = regexp.MustCompile(`[ \t　]*[\[［](\d{1,4}(?:\s*[,、，]\s*\d{1,4})*)[\]］]`)

// modelLink is a Discord link the model wrote itself, which is not
// trusted: links come only from the numbers.
var modelLink = regexp.MustCompile(`\(?<?https?://(?:\w+\.)?discord(?:app)?\.com/channels/[^\s)>]*>?\)?`)

// linkCitations turns the message numbers in text into jump links to the
// messages of msgs (numbered from 1), in channelID unless a message says
// it was written elsewhere (a thread); a number that names no message is
// dropped.
func linkCitations(text, guildID, channelID string, msgs []ChannelMessage) string {
	text = modelLink.ReplaceAllString(text, "")
	return citation.ReplaceAllStringFunc(text, func(c string) string {
		inner := citation.FindStringSubmatch(c)[1]
		var b strings.Builder
		for _, f := range strings.FieldsFunc(inner, func(r rune) bool { return r == ',' || r == '、' || r == '，' || r == ' ' }) {
			n, err := strconv.Atoi(f)
			if err != nil || n < 1 || n > len(msgs) {
				continue
			}
			in := channelID
			if m := msgs[n-1]; m.ChannelID != "" {
				in = m.ChannelID
			}
			b.WriteString(" [↗](" + JumpLink(guildID, in, msgs[n-1].ID) + ")")
		}
		return b.String()
	})
}

// JumpLink is the address of a Discord message; guildID is "" in a DM.
func JumpLink(guildID, channelID, messageID string) string {
	if guildID == "" {
		guildID = "@me"
	}
	return "https://discord.com/channels/" + guildID + "/" + channelID + "/" + messageID
}

// fitReply cuts s at a line to fit summaryReplyRunes.
func fitReply(s string) string { return fitRunes(s, summaryReplyRunes) }

// fitRunes cuts s at a line to fit n characters.
func fitRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	const more = "\n…（長いため以降は省略しました）"
	limit := n - utf8.RuneCountInString(more)
	r := []rune(s)[:limit]
	cut := string(r)
	if i := strings.LastIndexByte(cut, '\n'); i > 0 {
		cut = cut[:i]
	}
	return cut + more
}

// when writes the start of a period as a person reads it: 14:05 today,
// else 12/06 14:05.
func (s *Summarizer) when(t time.Time) string {
	loc := s.loc()
	t = t.In(loc)
	now := time.Now().In(loc)
	if t.Year() == now.Year() && t.YearDay() == now.YearDay() {
		return "今日 " + t.Format("15:04")
	}
	return t.Format("1月2日 15:04")
}

func (s *Summarizer) loc() *time.Location {
	if s.Location != nil {
		return s.Location
	}
	return time.Local
}

// SummaryWindow is the recent talk a mention asks to have summarised
// (「さっきの話まとめて」).
const SummaryWindow = 3 * time.Hour

// SummaryHandler answers 「さっきの話まとめて」 in a mention: the channel's
// talk of the last SummaryWindow, summarised as /summary does.
type SummaryHandler struct {
	Summarizer *Summarizer // required
	// Chat answers what has no channel to read (the admin page's chats).
	Chat Handler
	// Keep, when set, keeps the question and the summary in the
	// conversation as its other answers are, so that a follow-up
	// (「その2番目について詳しく」) has the summary in context; its Store
	// is used.
	Keep *Conversation
	Now  func() time.Time
}

// Handle summarises req's channel and sends the summary as the answer.
func (h *SummaryHandler) Handle(ctx context.Context, req Request, emit func(llm.Event) error) error {
	if req.Source != "discord" && h.Chat != nil {
		return h.Chat.Handle(ctx, req, emit)
	}
	// Another process may be answering the message: wait for its claim
	// before reading the history and calling the model.
	if req.Admit != nil {
		if err := req.Admit(ctx); err != nil {
			return fmt.Errorf("%w: %w", ErrNotAdmitted, err)
		}
	}
	now := time.Now
	if h.Now != nil {
		now = h.Now
	}
	at := req.At
	if at.IsZero() {
		at = now()
	}
	text, _, err := h.Summarizer.Summarize(ctx, req.GuildID, req.ChannelID, at.Add(-SummaryWindow), time.Time{}, nil)
	if err != nil {
		_ = emit(llm.Failed{Err: err})
		return err
	}
	if err := emit(llm.Text{Text: text}); err != nil {
		return err
	}
	if h.Keep != nil {
		h.Keep.record(ctx, req, turnOf(req, req.space(), req.Text, at,
			memory.MessageRecord{Content: text, Model: h.Summarizer.Model, At: now()}), false)
	}
	return emit(llm.Done{})
}
