package llm

import "strings"

const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
)

// thinkSplitter separates <think>…</think> blocks from streamed content.
// Tags may be split across chunks ("<thi" + "nk>"), so a tail that could be
// the start of a tag is held back until the next chunk decides it. A stray
// closing tag outside a block is dropped; an unclosed block is thinking to
// the end, so reasoning never leaks into the answer.
type thinkSplitter struct {
	inThink bool
	pending string
}

// Feed takes the next content chunk and returns its visible and thinking
// parts.
func (s *thinkSplitter) Feed(chunk string) (visible, thinking string) {
	buf := s.pending + chunk
	s.pending = ""
	var vis, th strings.Builder
	for buf != "" {
		if s.inThink {
			i := strings.Index(buf, thinkClose)
			if i < 0 {
				keep := partialTagSuffix(buf, thinkClose)
				th.WriteString(buf[:len(buf)-keep])
				s.pending = buf[len(buf)-keep:]
				break
			}
			th.WriteString(buf[:i])
			buf = buf[i+len(thinkClose):]
			s.inThink = false
			continue
		}
		open, closing := strings.Index(buf, thinkOpen), strings.Index(buf, thinkClose)
		switch {
		case open >= 0 && (closing < 0 || open < closing):
			vis.WriteString(buf[:open])
			buf = buf[open+len(thinkOpen):]
			s.inThink = true
		case closing >= 0:
			vis.WriteString(buf[:closing])
			buf = buf[closing+len(thinkClose):]
		default:
			keep := max(partialTagSuffix(buf, thinkOpen), partialTagSuffix(buf, thinkClose))
			vis.WriteString(buf[:len(buf)-keep])
			s.pending = buf[len(buf)-keep:]
			buf = ""
		}
	}
	return vis.String(), th.String()
}

// Flush ends the stream and returns whatever was held back.
func (s *thinkSplitter) Flush() (visible, thinking string) {
	p := s.pending
	s.pending = ""
	if s.inThink {
		return "", p
	}
	return p, ""
}

// partialTagSuffix is the length of the longest proper prefix of tag that
// buf ends with.
func partialTagSuffix(buf, tag string) int {
	for n := min(len(tag)-1, len(buf)); n > 0; n-- {
		if strings.HasSuffix(buf, tag[:n]) {
			return n
		}
	}
	return 0
}
