package llm

import (
	"encoding/json"

	"github.com/ollama/ollama/api"
)

// EncodedTools is a ToolSet that keeps the JSON of its definitions
// (json.Marshal of Definitions()), so that a chat call offering them does
// not encode a dozen schemas again: for yorozu's tools that is 12 KB and
// about 0.3 ms before every model call. tools.Registry satisfies it.
type EncodedTools interface {
	DefinitionsJSON() []byte
}

// toolsJSON is the JSON of ts's definitions when ts keeps it, else nil.
func toolsJSON(ts ToolSet) []byte {
	if e, ok := ts.(EncodedTools); ok {
		return e.DefinitionsJSON()
	}
	return nil
}

// chatBody is req as /api/chat takes it. tools, when set, is the JSON of
// req.Tools, put in their place instead of encoding them again.
func chatBody(req *api.ChatRequest, tools []byte) ([]byte, error) {
	if len(tools) == 0 || len(req.Tools) == 0 {
		return json.Marshal(req)
	}
	r := *req
	r.Tools = nil
	body, err := json.Marshal(&r)
	if err != nil {
		return nil, err
	}
	// body is an object with a "model" at least: the tools end it.
	out := make([]byte, 0, len(body)+len(`,"tools":`)+len(tools))
	out = append(out, body[:len(body)-1]...)
	out = append(out, `,"tools":`...)
	out = append(out, tools...)
	return append(out, '}'), nil
}
