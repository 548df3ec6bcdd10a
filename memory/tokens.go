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

// isWide reports runes that a tokenizer treats about one per token.
func isWide(r rune) bool {
	if r < 0x2E80 {
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
