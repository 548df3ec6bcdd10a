package memory

import (
	"fmt"
	"sort"
	"strings"
)

// UserShare is the part of the token budget the user's message may use with
// the documents attached to it: the documents get what the user's own words
// leave of it (and never more than the system prompt, the words and the
// newest turn leave of the whole budget). The user's words are never cut.
const UserShare = 0.5

// documentCutNote ends a document's text cut to fit the budget, so the model
// knows it saw only part and where to read on.
const documentCutNote = "\n…（以下省略：予算を超えたため）"

// Document is a file attached to the user's message (kept with the
// conversation, so read_fetched_file reads all of it): the model is given
// its name and as much of its text as the user's share of the budget holds.
type Document struct {
	Name   string
	About  string // size and kind for the model, e.g. "1.2 KB, csv"
	FileID int64  // the kept copy's id, for read_fetched_file
	Text   string // the text given with the question (at most its first part)
	// Part is set when Text is only the first part of the file.
	Part bool
}

// WithDocuments gives the user's message the documents attached to it, in
// the order attached, within the user's share of the budget (UserShare).
func WithDocuments(docs []Document) ContextOption {
	return func(e *contextExtras) { e.docs = docs }
}

// render is d as the model sees it: its text, or text ending in a cut.
func (d Document) render(text string, cut bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[添付ファイル「%s」(%s, file_id=%d)", d.Name, d.About, d.FileID)
	if d.Part || cut {
		fmt.Fprintf(&b, "。全文は read_fetched_file(file_id=%d) で読めます。冒頭:", d.FileID)
	} else {
		b.WriteString(" 全文:")
	}
	b.WriteString("\n" + strings.TrimSpace(text))
	if cut {
		b.WriteString(documentCutNote)
	}
	b.WriteString("\n]")
	return b.String()
}

// omittedNote stands for the documents left out entirely, n of them.
func omittedNote(n int) string {
	return fmt.Sprintf("[ほかに添付ファイルが %d 件あります（予算を超えたため省略。list_fetched_files で見られます）]", n)
}

// withDocuments is the user's message text with docs in at most room
// tokens (estimated, beside the text's own). When they do not all fit,
// each document is cut to an equal part of the room (one that needs less
// keeps all of it and leaves the rest to the others), so every file is seen
// from its beginning, with the way to read on; only when even their names
// do not fit are the last ones left out, named by a count.
func withDocuments(text string, docs []Document, room int) string {
	if len(docs) == 0 {
		return text
	}
	// Each joint ("\n\n") may add a token to a run of Latin text.
	const joint = 1
	frame := make([]int, len(docs)) // a document with no text, cut
	body := make([]int, len(docs))
	full := 0
	for i, d := range docs {
		frame[i] = EstimateTokens(d.render("", true)) + joint
		body[i] = EstimateTokens(strings.TrimSpace(d.Text)) + joint
		full += EstimateTokens(d.render(d.Text, false)) + joint
	}
	parts := make([]string, 0, len(docs)+1)
	if full <= room {
		for _, d := range docs {
			parts = append(parts, d.render(d.Text, false))
		}
		return join(text, parts)
	}
	// Names first: the last documents give way when not all fit.
	kept, used := 0, 0
	for kept < len(docs) {
		note := 0
		if kept+1 < len(docs) {
			note = EstimateTokens(omittedNote(len(docs)-kept-1)) + joint
		}
		if used+frame[kept]+note > room {
			break
		}
		used += frame[kept]
		kept++
	}
	omitted := ""
	if kept < len(docs) {
		// Said when it fits: at a budget that holds no name at all the
		// question goes alone.
		if n := EstimateTokens(omittedNote(len(docs)-kept)) + joint; used+n <= room {
			omitted = omittedNote(len(docs) - kept)
			used += n
		}
	}
	share := fairShares(body[:kept], max(0, room-used))
	for i, d := range docs[:kept] {
		if share[i] >= body[i] {
			parts = append(parts, d.render(d.Text, false))
			continue
		}
		parts = append(parts, d.render(cutToTokens(strings.TrimSpace(d.Text), share[i]-joint), true))
	}
	if omitted != "" {
		parts = append(parts, omitted)
	}
	return join(text, parts)
}

// fairShares divides room among needs: each need below an equal share gets
// all it needs, and the others divide what is left equally.
func fairShares(needs []int, room int) []int {
	order := make([]int, len(needs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return needs[order[a]] < needs[order[b]] })
	out := make([]int, len(needs))
	for k, i := range order {
		level := room / (len(needs) - k)
		out[i] = min(needs[i], level)
		room -= out[i]
	}
	return out
}

func join(text string, parts []string) string {
	return strings.TrimSpace(text + "\n\n" + strings.Join(parts, "\n\n"))
}
