package memory

import (
	"unicode"
	"unicode/utf8"

	"github.com/ollama/ollama/api"
)

// MessageOverhead is the estimated tokens a chat template adds around each
// message: qwen's "<|im_start|>role\n" … "<|im_end|>\n" is 5 tokens, llama
// 3's header and eot 5, gemma's turn markers 4–5.
const MessageOverhead = 5

// EstimateTokens estimates the prompt tokens text costs with the BPE
// tokenizers of the local models yorozu runs (qwen2.5/qwen3, llama 3,
// gemma), without loading one:
//
//   - Each CJK ideograph, kana, hangul syllable and full-width character
//     counts 1. These vocabularies (128k–256k entries) hold the common kanji
//     and kana as single tokens and merge some frequent pairs (です, ます,
//     した), so Japanese prose averages about 0.7–1.0 tokens per character;
//     counting 1 errs on the safe side of the budget.
//   - Everything else (Latin script, digits, spaces, punctuation, emoji)
//     counts 1 per 4 UTF-8 bytes, rounded up per run: English averages about
//     4 characters per token, and a run that breaks between CJK text is at
//     least one token.
//
// testdata/token_calibration.json checks the estimate against reference
// counts; see TestEstimateTokensCalibration for where they come from.
func EstimateTokens(text string) int {
	tokens, run := 0, 0
	for i := 0; i < len(text); {
		if text[i] < utf8.RuneSelf { // ASCII is never wide
			run++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		if isWide(r) {
			tokens += (run + 3) / 4
			run = 0
			tokens++
			continue
		}
		run += size
	}
	return tokens + (run+3)/4
}

// wideBMP holds isWide for the runes from wideFirst to the end of the
// basic multilingual plane, one bit each (6.5 KB): every turn estimates
// its whole context, and unicode.In's table search was most of that work.
var wideBMP = func() []uint64 {
	bits := make([]uint64, (0x10000-wideFirst+63)/64)
	for r := rune(wideFirst); r < 0x10000; r++ {
		if isWideSlow(r) {
			bits[(r-wideFirst)/64] |= 1 << ((r - wideFirst) % 64)
		}
	}
	return bits
}()

// wideFirst is the first rune isWide may report.
const wideFirst = 0x2E80

// isWide reports runes that a tokenizer treats about one per token.
func isWide(r rune) bool {
	switch {
	case r < wideFirst:
		return false
	case r < 0x10000:
		return wideBMP[(r-wideFirst)/64]&(1<<((r-wideFirst)%64)) != 0
	}
	return isWideSlow(r)
}

func isWideSlow(r rune) bool {
	if r < wideFirst {
		return false
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		(r >= 0x3000 && r <= 0x303F) || // CJK punctuation: 、。「」
		(r >= 0xFF00 && r <= 0xFFEF) // full-width forms: ！？（）
}

// messageTokens is the estimate of one chat message, overhead included.
func messageTokens(m api.Message) int {
	return EstimateTokens(m.Content) + MessageOverhead
}
