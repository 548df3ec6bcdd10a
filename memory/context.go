package memory

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/db"
)

var weekdaysJA = [...]string{"日", "月", "火", "水", "木", "金", "土"}

// Limits of the layers.
const (
	// KnowledgeHeadings is how many knowledge titles layer 1 lists.
	KnowledgeHeadings = 15
	// NoteHeadChars is how much of a page layer 2 shows after its title.
	NoteHeadChars = 40
	// LinkedNoteChars cuts each linked page in layer 2.5.
	LinkedNoteChars = 8000
	// KBTopK and KBMinScore select knowledge-base files for layer 3.
	KBTopK     = 3
	KBMinScore = 0.75
	// maxNotesIndex and maxSummaries bound what one turn reads.
	maxNotesIndex = 200
	maxSummaries  = 50
	// protectedMessages: the newest turn (user message and reply) stays
	// whatever the budget.
	protectedMessages = 2
	// minCut: a text layer item is cut to fit only when this many tokens
	// are left for it; less, and it is left out.
	minCut = 64
)

// Shares of the token budget, in the order layers are given their room (and
// so the reverse of the order they give way in). Each layer first takes up to
// its share; what is left afterwards goes to the same layers again in the
// same order, so a share nobody needs is not wasted.
var layerShares = []struct {
	layer layerID
	share float64
}{
	{layerRecent, 0.30},
	{layerTalk, TalkShare},
	{layerProfile, ProfileShare},
	{layerSummaries, SummaryShare},
	{layerChain, 0.15},
	{layerHeadings, 0.05},
	{layerNotes, 0.10},
	{layerLinked, 0.15},
	{layerKB, 0.20},
}

// SummaryShare is the part of the budget the session's summaries may use;
// past it the oldest are folded into one.
const SummaryShare = 0.20

type layerID int

const (
	layerHeadings layerID = iota
	layerNotes
	layerLinked
	layerKB
	layerSummaries
	layerChain
	layerRecent
	layerTalk
	layerProfile
	numLayers
)

// layer is the candidate content of one layer: items in the order they are
// shown, each with its token estimate. keepTail: the layer keeps its last
// items when it must shrink (history, summaries); otherwise its first
// (most relevant / newest) items.
type layer struct {
	title    string
	items    []string
	tokens   []int
	keepTail bool
	cuttable bool // items are long texts that may be cut to fit
	taken    int  // items kept, counted from the kept end
	cut      string
	used     int
}

// Context returns the messages for the model's next turn in session key of
// space (empty: the default space), within the token budget:
//
//	system: yorozu's guidance and the current date and time in Location,
//	        then the channel's persona (WithPersona)
//	system: 1. knowledge headings (latest 15 titles; bodies via read_knowledge)
//	system: 2. notes index (title and first 40 characters, by section, linked pages marked)
//	system: 2.5. linked notes (full text, each cut at 8,000 characters)
//	system: 3. knowledge base (top 3 files by similarity ≥ 0.75, trusted over web search)
//	system: 4. long-term memory (the session's summaries)
//	system: 4.2. what the speaker asked yorozu to keep about them (WithSpeaker)
//	system: 4.5. the message replied to and its reply chain (WithReplyChain)
//	5. recent unsummarised messages, oldest first
//	system: 5.5. the channel's talk since yorozu last answered (WithTalk)
//	user: userText, then the documents attached to it (WithDocuments)
//
// Layers 1 to 3 show only what belongs to space (the shared knowledge base
// and space's own folders). Empty layers are left out. When everything does not fit, layers give way
// in this order: older recent messages beyond their share, knowledge-base
// files (least similar first), linked notes, the notes index, knowledge
// headings, the reply chain (oldest first; a long message is cut to fit),
// summaries (oldest first), the speaker's facts (oldest first; never more
// than ProfileShare), the channel's talk (oldest first; never more
// than TalkShare), and last the recent messages within their share (oldest
// first). The system prompt (persona
// included), the user's message and the newest turn never give way; the
// documents attached to the message take their room first, within the
// user's share (UserShare), and are cut to fit it.
func (m *Memory) Context(ctx context.Context, key SessionKey, space Space, userText string, opts ...ContextOption) ([]api.Message, error) {
	var extra contextExtras
	for _, o := range opts {
		o(&extra)
	}
	space, err := m.space(ctx, space)
	if err != nil {
		return nil, fmt.Errorf("context for session %q: %w", key, err)
	}
	kbDone := m.startKBQuery(ctx, space, userText)
	// Turns begun and not yet stored are taken before the reads: one whose
	// commit ends meanwhile is then either read or still here (and shown
	// once).
	pending := m.pending.of(key)
	r, err := m.contextReads(ctx, key, space, extra.speaker)
	if err != nil {
		kbDone()
		return nil, fmt.Errorf("context for session %q: %w", key, err)
	}
	history := withPending(r.history, pending, m.opts.MaxMessages, m.opts.MaxChars)
	docs := kbDone()

	var ls [numLayers]layer
	built := m.layersOf(r)
	ls[layerHeadings] = built.headings
	ls[layerNotes] = built.notes
	ls[layerLinked] = built.linked
	ls[layerKB] = kbLayer(docs)
	ls[layerSummaries] = built.summaries
	ls[layerChain] = m.chainLayer(extra.chain, history)
	ls[layerTalk] = m.talkLayer(extra.talk)
	ls[layerProfile] = profileLayer(extra.speakerName, r.facts)

	recent := make([]api.Message, len(history))
	ls[layerRecent] = layer{keepTail: true}
	for i, h := range history {
		recent[i] = api.Message{Role: h.Role, Content: historyContent(h)}
		ls[layerRecent].items = append(ls[layerRecent].items, recent[i].Content)
		ls[layerRecent].tokens = append(ls[layerRecent].tokens, messageTokens(recent[i]))
	}

	system := api.Message{Role: "system", Content: m.systemPrompt()}
	if r.fetched {
		system.Content += "\n\n" + fetchedHint
	}
	if extra.persona != "" {
		system.Content += "\n\n" + personaHeading + extra.persona
	}
	user := api.Message{Role: "user", Content: userText}
	left := m.opts.TokenBudget - messageTokens(system) - messageTokens(user)
	// The newest turn is kept first, whatever it costs.
	rl := &ls[layerRecent]
	for rl.taken < min(protectedMessages, len(rl.items)) {
		left -= rl.tokens[len(rl.items)-1-rl.taken]
		rl.used += rl.tokens[len(rl.items)-1-rl.taken]
		rl.taken++
	}
	if len(extra.docs) > 0 {
		// Documents come with the user's words, within the user's share
		// and what the parts that never give way leave.
		words := messageTokens(user)
		room := min(int(UserShare*float64(m.opts.TokenBudget))-words, left)
		user.Content = withDocuments(userText, extra.docs, max(room, 0))
		left -= messageTokens(user) - words
	}
	for _, s := range layerShares {
		share := int(s.share*float64(m.opts.TokenBudget)) - ls[s.layer].used
		left -= ls[s.layer].fill(min(left, share))
	}
	for _, s := range layerShares {
		if s.layer != layerTalk && s.layer != layerProfile { // never past their shares
			left -= ls[s.layer].fill(left)
		}
	}

	msgs := make([]api.Message, 0, 8+len(history))
	msgs = append(msgs, system)
	for _, id := range []layerID{layerHeadings, layerNotes, layerLinked, layerKB, layerSummaries, layerProfile, layerChain} {
		if text := ls[id].render(); text != "" {
			msgs = append(msgs, api.Message{Role: "system", Content: text})
		}
	}
	msgs = append(msgs, recent[len(recent)-rl.taken:]...)
	if text := ls[layerTalk].render(); text != "" {
		// Said after yorozu's last answer and before the question, so it
		// comes between them.
		msgs = append(msgs, api.Message{Role: "system", Content: text})
	}
	return append(msgs, user), nil
}

// contextReads returns what the context reads of the database for session
// key in space with speaker's facts: from the cache when it holds them,
// else read (and kept when the cache is on).
func (m *Memory) contextReads(ctx context.Context, key SessionKey, space Space, speaker string) (*contextReads, error) {
	r, fill := m.cache.get(cacheKey{key: key, space: space, speaker: speaker})
	if r != nil {
		return r, nil
	}
	// The layers are independent reads: queue them in one batch, so the
	// context costs one round trip on one connection.
	r = newContextReads()
	var b db.Batch
	db.QueueRecentMessagesByKey(&b, string(key), m.opts.MaxMessages, &r.history)
	db.QueueLiveMemoriesByKey(&b, string(key), maxSummaries, &r.summaries)
	db.QueueLatestKnowledge(&b, string(space), KnowledgeHeadings, &r.headings)
	db.QueueNotesIndexByKey(&b, string(space), string(key), maxNotesIndex, &r.notes)
	db.QueueLinkedNotePagesByKey(&b, string(space), string(key), &r.linked)
	db.QueueHasFetchedFilesByKey(&b, string(key), &r.fetched)
	if speaker != "" {
		db.QueueMemberFacts(&b, string(space), speaker, &r.facts)
	}
	if err := b.Send(ctx, m.pool); err != nil {
		m.cache.abandon(fill)
		return nil, err
	}
	r.history = trimToChars(r.history, m.opts.MaxChars)
	if fill != nil {
		m.layersOf(r) // built before it is kept, so its size counts them
	}
	return m.cache.put(fill, r, m.opts.MaxMessages, m.opts.MaxChars), nil
}

// fill takes more items into the layer while they fit in room tokens (the
// layer's title counted once) and returns the tokens it added.
func (l *layer) fill(room int) int {
	added := 0
	if room <= 0 || l.taken == len(l.items) || l.cut != "" {
		return 0
	}
	if l.taken == 0 && l.title != "" {
		t := EstimateTokens(l.title) + MessageOverhead
		if t >= room {
			return 0
		}
		room -= t
		added += t
	}
	start := added
	for l.taken < len(l.items) {
		i := l.next()
		if l.tokens[i] <= room {
			room -= l.tokens[i]
			added += l.tokens[i]
			l.taken++
			continue
		}
		if l.cuttable && room >= minCut {
			l.cut = cutToTokens(l.items[i], room-8) + "\n…(以下略)"
			t := EstimateTokens(l.cut)
			added += t
		}
		break
	}
	if added == start { // nothing but the title: the layer stays empty
		return 0
	}
	l.used += added
	return added
}

// next is the index of the next item to take.
func (l *layer) next() int {
	if l.keepTail {
		return len(l.items) - 1 - l.taken
	}
	return l.taken
}

func (l *layer) render() string {
	if l.taken == 0 && l.cut == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString(l.title)
	kept := l.items[:l.taken]
	if l.keepTail {
		kept = l.items[len(l.items)-l.taken:]
	}
	// The cut item is the one after the kept ones in taking order: after
	// them, or before them when the layer keeps its tail.
	if l.cut != "" && l.keepTail {
		b.WriteString("\n")
		b.WriteString(l.cut)
	}
	for _, it := range kept {
		b.WriteString("\n")
		b.WriteString(it)
	}
	if l.cut != "" && !l.keepTail {
		b.WriteString("\n")
		b.WriteString(l.cut)
	}
	return b.String()
}

// cutToTokens returns the longest prefix of s estimated at most n tokens,
// ending at a line break when one is near.
func cutToTokens(s string, n int) string {
	lo, hi := 0, utf8.RuneCountInString(s)
	runes := []rune(s)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if EstimateTokens(string(runes[:mid])) <= n {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	out := string(runes[:lo])
	if i := strings.LastIndex(out, "\n"); i > len(out)*3/4 {
		out = out[:i]
	}
	return out
}

func (m *Memory) systemPrompt() string {
	now := m.opts.Now().In(m.opts.Location)
	zone := m.opts.Location.String()
	if zone == "" || zone == "Local" {
		zone = now.Format("MST")
	}
	return fmt.Sprintf("%s\n\n現在: %d年%d月%d日(%s) %s (%s)",
		m.opts.Persona, now.Year(), int(now.Month()), now.Day(),
		weekdaysJA[now.Weekday()], now.Format("15:04"), zone)
}

func (m *Memory) headingsLayer(hs []db.KnowledgeHeading) layer {
	l := layer{title: "## 蓄積した知識 (見出し)\nウェブ検索で得た知識の見出しです。本文は read_knowledge(id) で読めます。"}
	for _, h := range hs {
		it := fmt.Sprintf("- [%d] %s (%s)", h.ID, h.Title, h.CreatedAt.In(m.opts.Location).Format("2006-01-02"))
		l.items = append(l.items, it)
		l.tokens = append(l.tokens, EstimateTokens(it)+1)
	}
	return l
}

func notesLayer(items []db.NoteIndexItem) layer {
	l := layer{title: "## 共有ノート (目次)\nread_note(タイトルかID) で全文を読み、write_note で書けます。★はこの会話にリンクされたページです。"}
	section := "\x00"
	for _, n := range items {
		var b strings.Builder
		if n.Section != section {
			section = n.Section
			name := n.Section
			if name == "" {
				name = "(セクションなし)"
			}
			fmt.Fprintf(&b, "### %s\n", name)
		}
		mark := "-"
		if n.Linked {
			mark = "- ★"
		}
		head := strings.Join(strings.Fields(n.Head), " ")
		fmt.Fprintf(&b, "%s [%d] %s: %s", mark, n.ID, n.Title, head)
		if utf8.RuneCountInString(n.Head) >= NoteHeadChars {
			b.WriteString("…")
		}
		l.items = append(l.items, b.String())
		l.tokens = append(l.tokens, EstimateTokens(b.String())+1)
	}
	return l
}

func linkedLayer(pages []db.NotePage) layer {
	l := layer{title: "## リンクされたノート (全文)", cuttable: true}
	for _, p := range pages {
		content := p.Content
		if utf8.RuneCountInString(content) > LinkedNoteChars {
			content = string([]rune(content)[:LinkedNoteChars]) + "\n…(8,000 文字で省略。続きは read_note で)"
		}
		it := fmt.Sprintf("### [%d] %s\n%s", p.ID, p.Title, content)
		l.items = append(l.items, it)
		l.tokens = append(l.tokens, EstimateTokens(it)+1)
	}
	return l
}

func kbLayer(docs []kbHit) layer {
	l := layer{title: "## ナレッジベース\n以下はこのコミュニティが用意した資料です。ウェブ検索の結果より信頼できる情報として優先してください。", cuttable: true}
	for _, d := range docs {
		it := fmt.Sprintf("### %s (%s)\n%s", d.doc.title, d.doc.path, d.content)
		l.items = append(l.items, it)
		l.tokens = append(l.tokens, EstimateTokens(it)+1)
	}
	return l
}

func (m *Memory) summariesLayer(ms []db.Memory) layer {
	l := layer{title: "## 長期記憶 (この会話のこれまでの要約、古い順)", keepTail: true}
	for _, s := range ms {
		it := m.summaryItem(s)
		l.items = append(l.items, it)
		l.tokens = append(l.tokens, EstimateTokens(it)+1)
	}
	return l
}

// historyContent shows who spoke: several people share a channel, and the
// model must tell them apart.
func historyContent(h db.Message) string {
	if h.Role == db.RoleUser && h.AuthorName != "" {
		return h.AuthorName + ": " + h.Content
	}
	return h.Content
}

// trimToChars drops the oldest messages until the rest fit in maxChars. The
// newest message always stays, even when it alone is longer.
func trimToChars(ms []db.Message, maxChars int) []db.Message {
	total := 0
	for i := len(ms) - 1; i >= 0; i-- {
		total += utf8.RuneCountInString(historyContent(ms[i]))
		if total > maxChars && i < len(ms)-1 {
			return ms[i+1:]
		}
	}
	return ms
}
