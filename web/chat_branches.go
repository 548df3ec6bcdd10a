package web

import (
	"errors"
	"net/http"

	"github.com/yorozu-bot/yorozu/db"
)

// Versions of a conversation: 再生成 writes an answer again, 編集 sends a
// user message again with new text. Either keeps what was there from that
// point on as another version (‹ 1/2 ›), and the version shown is the one
// later turns read (db/branches.go).

const busyText = "応答中です。答え終わってから（または停止してから）もう一度どうぞ。"

// forkPoint is where a regenerate or an edit starts a new version.
type forkPoint struct {
	anchor int64 // the message the new version follows; 0: the start
	kind   string
}

// findForkPoint checks the regenerate or edit of req in sess and finds where
// its version starts, changing nothing yet; req.Message is set to what is
// to be answered. On failure it answers and returns nil.
func (s *Server) findForkPoint(w http.ResponseWriter, r *http.Request, sess db.SessionItem, req *streamRequest) *forkPoint {
	if s.lanes.live.first(sess.ID) != nil {
		writeError(w, http.StatusConflict, busyText)
		return nil
	}
	field, id, kind := "regenerate", req.Regenerate, db.BranchRegenerate
	if req.Edit != 0 {
		field, id, kind = "edit", req.Edit, db.BranchEdit
	}
	anchor, role, _, err := db.BranchPoint(r.Context(), s.opts.Pool, sess.ID, id)
	if errors.Is(err, db.ErrNotFound) {
		writeFieldError(w, field, "その会話にそのメッセージはありません")
		return nil
	}
	if err != nil {
		s.internalError(w, r, err)
		return nil
	}
	switch {
	case kind == db.BranchEdit && role != db.RoleUser:
		writeFieldError(w, field, "編集できるのは自分のメッセージだけです")
		return nil
	case kind == db.BranchRegenerate && role != db.RoleAssistant:
		writeFieldError(w, field, "再生成できるのはよろずの答えだけです")
		return nil
	case kind == db.BranchRegenerate:
		// The question is asked again: the version starts at it.
		var qRole, question string
		if anchor == 0 {
			writeFieldError(w, field, "この答えには質問がありません")
			return nil
		}
		at := anchor
		anchor, qRole, question, err = db.BranchPoint(r.Context(), s.opts.Pool, sess.ID, at)
		if err != nil {
			s.internalError(w, r, err)
			return nil
		}
		if qRole != db.RoleUser {
			writeFieldError(w, field, "この答えには質問がありません")
			return nil
		}
		req.Message = question
	}
	return &forkPoint{anchor: anchor, kind: kind}
}

// fork makes room for the turn at p: the version shown from there on is
// kept aside. On failure it answers and returns false.
func (s *Server) fork(w http.ResponseWriter, r *http.Request, sess db.SessionItem, p forkPoint) bool {
	err := db.ForkBranch(r.Context(), s.opts.Pool, sess.ID, p.anchor, p.kind)
	if errors.Is(err, db.ErrNotFound) { // deleted since it was loaded
		writeError(w, http.StatusNotFound, "その会話はありません。")
		return false
	}
	if errors.Is(err, db.ErrArchivedBranch) {
		writeError(w, http.StatusConflict, "そこから先は要約済みのため、別の版を作れません。")
		return false
	}
	if err != nil {
		s.internalError(w, r, err)
		return false
	}
	return true
}

type switchRequest struct {
	AnchorID int64 `json:"anchor_id"`
	Position int   `json:"position"`
}

// handleSwitchBranch shows another version of a conversation from a point
// on: POST /chat/sessions/{id}/branches {"anchor_id", "position"}. Later
// turns read the version shown.
func (s *Server) handleSwitchBranch(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.loadSession(w, r)
	if !ok {
		return
	}
	var req switchRequest
	if !decodeJSON(w, r, &req, maxBody) {
		return
	}
	if req.Position < 1 {
		writeFieldError(w, "position", "1 以上にしてください")
		return
	}
	if s.lanes.live.first(sess.ID) != nil {
		writeError(w, http.StatusConflict, busyText)
		return
	}
	err := db.SwitchBranch(r.Context(), s.opts.Pool, sess.ID, req.AnchorID, req.Position)
	if errors.Is(err, db.ErrNotFound) {
		writeFieldError(w, "position", "その版はありません")
		return
	}
	if errors.Is(err, db.ErrArchivedBranch) {
		writeError(w, http.StatusConflict, "そこから先は要約済みのため、版を切り替えられません。")
		return
	}
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// versionsJSON is the versions from one point on as a person reads them:
// a question's own versions (it was edited) and, under the question shown,
// its answer's versions (it was written again). Each step says which
// version (BranchSet position) it shows.
type versionsJSON struct {
	db.BranchSet
	Question *versionStep `json:"question,omitempty"`
	Answer   *versionStep `json:"answer,omitempty"`
}

// versionStep is one ‹ n/m › switch: Targets[n-1] is the version its n-th
// step shows.
type versionStep struct {
	Position int   `json:"position"`
	Count    int   `json:"count"`
	Targets  []int `json:"targets"`
}

// groupVersions reads the versions of set, each starting with heads[i] (the
// shown one with shownHead), as questions and their answers: versions that
// start with the same question are that question's answers. The question
// leads to its newest answer.
func groupVersions(set db.BranchSet, heads []*string, shownHead string) versionsJSON {
	v := versionsJSON{BranchSet: set}
	var order []string
	groups := map[string][]int{}
	for i, h := range heads {
		text := shownHead
		if h != nil {
			text = *h
		}
		if _, ok := groups[text]; !ok {
			order = append(order, text)
		}
		groups[text] = append(groups[text], i+1)
	}
	q := &versionStep{Count: len(order)}
	for i, text := range order {
		ps := groups[text]
		target := ps[len(ps)-1]
		if text == shownHead {
			q.Position, target = i+1, set.Shown
			a := &versionStep{Count: len(ps), Targets: ps}
			for j, p := range ps {
				if p == set.Shown {
					a.Position = j + 1
				}
			}
			v.Answer = a
		}
		q.Targets = append(q.Targets, target)
	}
	v.Question = q
	return v
}

// withBranches marks, in a page of history, the first message of each
// point where the conversation has versions. first says the page starts
// at the conversation's start.
func (s *Server) withBranches(r *http.Request, sess db.SessionItem, out []messageJSON, first bool) error {
	sets, err := db.SessionBranches(r.Context(), s.opts.Pool, sess.ID)
	if err != nil || len(sets) == 0 {
		return err
	}
	heads, err := db.BranchHeads(r.Context(), s.opts.Pool, sess.ID)
	if err != nil {
		return err
	}
	for i := range out {
		var prev int64
		switch {
		case i > 0:
			prev = out[i-1].ID
		case !first:
			continue
		}
		if set, ok := sets[prev]; ok {
			v := groupVersions(set, heads[prev], out[i].Content)
			out[i].Branch = &v
		}
	}
	return nil
}
