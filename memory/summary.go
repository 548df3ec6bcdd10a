package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm"
)

// maxSummaryRounds bounds the summaries one background run writes, for a
// session with a backlog (the model was down for a while).
const maxSummaryRounds = 10

// afterRecord queues the background work of a stored turn: tags for both
// messages and the word pool (kagome, no model call), then a summary when
// the session has enough unsummarised messages.
func (m *Memory) afterRecord(space Space, stored []db.Message) {
	if len(stored) == 0 {
		return
	}
	sessionID := stored[0].SessionID
	if !m.bg.run(func(ctx context.Context) {
		m.tagTurn(ctx, space, stored)
		m.summarizeSession(llm.WithSpace(ctx, string(space)), sessionID)
	}) {
		m.log.Warn("memory background queue full: tags and summary skipped for this turn", "session_id", sessionID)
	}
}

// summarizeSession summarises the oldest SummarizeAt unsummarised messages,
// archives them, and repeats while the session still holds enough (see
// Options.SummarizeAt); then folds old summaries if they outgrew their
// share. One run per session at a time.
func (m *Memory) summarizeSession(ctx context.Context, sessionID int64) {
	if m.opts.Ollama == nil {
		return
	}
	if !m.claimSummary(sessionID) {
		return // the run in progress goes round once more
	}
	for {
		m.summarizeRun(ctx, sessionID)
		if !m.releaseSummary(sessionID) || ctx.Err() != nil {
			return
		}
	}
}

// claimSummary starts the session's summary run, or asks the one in
// progress to run again (it may have counted before the newest turn).
func (m *Memory) claimSummary(sessionID int64) bool {
	m.sumMu.Lock()
	defer m.sumMu.Unlock()
	if m.summarizing == nil {
		m.summarizing = map[int64]bool{}
	}
	if _, running := m.summarizing[sessionID]; running {
		m.summarizing[sessionID] = true
		return false
	}
	m.summarizing[sessionID] = false
	return true
}

// releaseSummary ends a run; true when it must run again.
func (m *Memory) releaseSummary(sessionID int64) bool {
	m.sumMu.Lock()
	defer m.sumMu.Unlock()
	if m.summarizing[sessionID] {
		m.summarizing[sessionID] = false
		return true
	}
	delete(m.summarizing, sessionID)
	return false
}

func (m *Memory) summarizeRun(ctx context.Context, sessionID int64) {
	wrote := false
	for range maxSummaryRounds {
		ok, err := m.summarizeOnce(ctx, sessionID)
		if err != nil && ctx.Err() != nil {
			return // shutting down
		}
		if err != nil {
			m.log.Warn("summarise session", "session_id", sessionID, "err", err)
			break
		}
		if !ok {
			break
		}
		wrote = true
	}
	if wrote {
		if err := m.foldSummaries(ctx, sessionID); err != nil {
			m.log.Warn("fold summaries", "session_id", sessionID, "err", err)
		}
	}
}

// summarizeOnce writes one summary when due; false when not due.
func (m *Memory) summarizeOnce(ctx context.Context, sessionID int64) (bool, error) {
	due := m.opts.SummarizeAt + m.opts.SummarizeAt/2
	n, err := db.CountUnarchived(ctx, m.pool, sessionID, due)
	if err != nil || n < due {
		return false, err
	}
	msgs, err := db.OldestUnarchived(ctx, m.pool, sessionID, m.opts.SummarizeAt)
	if err != nil || len(msgs) == 0 {
		return false, err
	}
	var transcript strings.Builder
	for _, msg := range msgs {
		who := msg.AuthorName
		if msg.Role == db.RoleAssistant {
			who = "よろず"
		} else if who == "" {
			who = "ユーザー"
		}
		fmt.Fprintf(&transcript, "[%s] %s: %s\n", msg.CreatedAt.In(m.opts.Location).Format("2006-01-02 15:04"), who, msg.Content)
	}
	content, tags, err := m.summarize(llm.WithKind(ctx, llm.KindSummary), summarizePrompt, transcript.String())
	if err != nil {
		return false, fmt.Errorf("summarise %d messages: %w", len(msgs), err)
	}
	ids := make([]int64, len(msgs))
	for i, msg := range msgs {
		ids[i] = msg.ID
	}
	err = m.storeSummary(ctx, db.MemoryParams{
		SessionID: sessionID, Content: content, MessageCount: len(msgs),
		PeriodStart: msgs[0].CreatedAt, PeriodEnd: msgs[len(msgs)-1].CreatedAt,
	}, tags, func(tx pgx.Tx, id int64) error {
		n, err := db.ArchiveMessages(ctx, tx, sessionID, ids, &id, m.opts.Now())
		if err != nil {
			return err
		}
		if n != int64(len(ids)) { // /forget or another process got there first
			return fmt.Errorf("archive: %d of %d messages were still unarchived", n, len(ids))
		}
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("store summary: %w", err)
	}
	return true, nil
}

// foldSummaries folds the oldest live summaries of a session into one when
// together they cost more than their share of the budget, so the prompt
// stays bounded however long the session grows.
func (m *Memory) foldSummaries(ctx context.Context, sessionID int64) error {
	live, err := db.LiveMemories(ctx, m.pool, sessionID)
	if err != nil {
		return err
	}
	share := int(SummaryShare * float64(m.opts.TokenBudget))
	cost := make([]int, len(live))
	total := 0
	for i, s := range live {
		cost[i] = EstimateTokens(m.summaryItem(s)) + 1
		total += cost[i]
	}
	if total <= share || len(live) < 2 {
		return nil
	}
	// Fold the oldest until what stays, plus room for the folded summary
	// (a quarter of the share), fits.
	k := 0
	for k < len(live)-1 && (k < 2 || total+share/4 > share) {
		total -= cost[k]
		k++
	}
	old := live[:k]
	var in strings.Builder
	count := 0
	for _, s := range old {
		in.WriteString(m.summaryItem(s))
		in.WriteString("\n")
		count += s.MessageCount
	}
	content, tags, err := m.summarize(llm.WithKind(ctx, llm.KindSummary), foldPrompt, in.String())
	if err != nil {
		return fmt.Errorf("fold %d summaries: %w", len(old), err)
	}
	ids := make([]int64, len(old))
	for i, s := range old {
		ids[i] = s.ID
	}
	err = m.storeSummary(ctx, db.MemoryParams{
		SessionID: sessionID, Content: content, MessageCount: count,
		PeriodStart: old[0].PeriodStart, PeriodEnd: old[len(old)-1].PeriodEnd,
	}, tags, func(tx pgx.Tx, id int64) error {
		n, err := db.FoldMemories(ctx, tx, ids, id)
		if err == nil && n != int64(len(ids)) {
			err = fmt.Errorf("%d of %d summaries were still live", n, len(ids))
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("store folded summary: %w", err)
	}
	return nil
}

// storeSummary writes summary p with its tags and, in the same
// transaction, has replace set aside what it stands for (the messages it
// archives, the summaries it folds): all or nothing, so nothing is left
// both summarised and live, or lost in between.
func (m *Memory) storeSummary(ctx context.Context, p db.MemoryParams, tags []string, replace func(tx pgx.Tx, id int64) error) error {
	p.Tokens, p.CreatedAt = EstimateTokens(p.Content), m.opts.Now()
	// Once written (or not), what the cache held of the conversation is
	// read again, as it now is.
	defer func() { m.rewarm(ctx, m.dropSession(p.SessionID)) }()
	return pgx.BeginFunc(ctx, m.pool, func(tx pgx.Tx) error {
		// Its notice is for other processes: this one reads the
		// conversation again itself, and a notice arriving meanwhile would
		// spoil that read.
		if err := db.TagOrigin(ctx, tx, m.origin); err != nil {
			return err
		}
		mem, err := db.InsertMemory(ctx, tx, p)
		if err != nil {
			return err
		}
		if err := db.SetMemoryTags(ctx, tx, mem.ID, tags); err != nil {
			return err
		}
		return replace(tx, mem.ID)
	})
}

const summarizePrompt = `あなたは会話の記録係です。以下のチャットの記録を、後で思い出すための要約にしてください。
- 日本語で、300 字以内の箇条書きにします。
- 誰が何を言ったか、決まったこと、頼まれたこと、約束、固有名詞、数字や日付を残します。
- 記録にないことは書きません。前置きやあいさつは不要です。
` + summaryAnswer

const foldPrompt = `あなたは会話の記録係です。以下は同じ会話の古い順の要約です。これらを 1 つの要約にまとめてください。
- 日本語で、400 字以内の箇条書きにします。
- 決まったこと、頼まれたこと、固有名詞、数字や日付を優先して残し、細かいやり取りは省きます。
- 書かれていないことは書きません。前置きは不要です。
` + summaryAnswer

// summaryAnswer asks for the summary and its tags in one answer: a summary
// costs one model call, tags included.
const summaryAnswer = `- tags には話題を表す短い名詞を 3 つ選びます。
JSON {"summary": "…", "tags": ["…", "…", "…"]} だけを返します。`

var summaryFormat = json.RawMessage(`{"type":"object","properties":{` +
	`"summary":{"type":"string","minLength":1},` +
	`"tags":{"type":"array","items":{"type":"string","minLength":1},"minItems":1,"maxItems":5}},` +
	`"required":["summary","tags"]}`)

// summarize asks the model for a summary and its tags in one call. A model
// that ignores the format still gives a summary: its plain answer, tagged
// with its own nouns.
func (m *Memory) summarize(ctx context.Context, system, input string) (string, []string, error) {
	out, err := m.complete(ctx, system, input, summaryFormat)
	if err != nil {
		return "", nil, err
	}
	var v struct {
		Summary string   `json:"summary"`
		Tags    []string `json:"tags"`
	}
	if json.Unmarshal([]byte(out), &v) != nil {
		if strings.HasPrefix(out, "{") {
			return "", nil, fmt.Errorf("malformed summary answer %.80q", out)
		}
		v.Summary = out
	}
	v.Summary = strings.TrimSpace(v.Summary)
	if v.Summary == "" {
		return "", nil, errors.New("empty summary")
	}
	tags := cleanTags(v.Tags)
	if len(tags) == 0 {
		tags = NounTags(v.Summary)
	}
	return v.Summary, tags, nil
}

// summaryItem is how a summary is shown in the long-term memory layer.
func (m *Memory) summaryItem(s db.Memory) string {
	return fmt.Sprintf("- %s〜%s: %s",
		s.PeriodStart.In(m.opts.Location).Format("2006-01-02 15:04"),
		s.PeriodEnd.In(m.opts.Location).Format("01-02 15:04"), s.Content)
}

var thinkBlock = regexp.MustCompile(`(?s)<think>.*?</think>`)

// complete asks the model once, without streaming or thinking, and returns
// its trimmed answer. format, when set, constrains it to JSON.
func (m *Memory) complete(ctx context.Context, system, user string, format []byte) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, m.opts.ModelTimeout)
	defer cancel()
	stream := false
	req := &api.ChatRequest{
		Model:    m.opts.Model,
		Messages: []api.Message{{Role: "system", Content: system}, {Role: "user", Content: user}},
		Stream:   &stream,
		Think:    &api.ThinkValue{Value: false},
		Format:   format,
		Options:  map[string]any{"temperature": 0.2},
	}
	var out strings.Builder
	err := m.opts.Ollama.Chat(ctx, req, func(r api.ChatResponse) error {
		out.WriteString(r.Message.Content)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("ask %s: %w", m.opts.Model, err)
	}
	return strings.TrimSpace(thinkBlock.ReplaceAllString(out.String(), "")), nil
}
