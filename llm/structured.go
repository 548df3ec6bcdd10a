package llm

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/ollama/ollama/api"
)

// Structured-output fallback for models without the "tools" capability; the
// shape is documented in the package doc.

// structuredReply is what the model writes in fallback mode.
type structuredReply struct {
	ToolCalls []structuredCall `json:"tool_calls"`
	Answer    string           `json:"answer"`
}

type structuredCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// structuredFormat is the JSON schema sent as format. Without offer (the
// call after the last round) only an answer is allowed.
func structuredFormat(defs api.Tools, offer bool) json.RawMessage {
	answer := map[string]any{"type": "string"}
	schema := map[string]any{
		"type":       "object",
		"properties": map[string]any{"answer": answer},
		"required":   []string{"answer"},
	}
	if offer {
		names := make([]string, len(defs))
		for i, d := range defs {
			names[i] = d.Function.Name
		}
		schema["properties"] = map[string]any{
			"tool_calls": map[string]any{
				"type": "array",
				"items": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"name":      map[string]any{"type": "string", "enum": names},
						"arguments": map[string]any{"type": "object"},
					},
					"required": []string{"name", "arguments"},
				},
			},
			"answer": answer,
		}
		schema["required"] = []string{"tool_calls", "answer"}
	}
	b, _ := json.Marshal(schema) // only maps, strings and slices: cannot fail
	return b
}

const structuredAnswerNow = `Tools are no longer available. Reply with JSON {"answer": "..."} that answers the user with what you have.`

// structuredInstructions tells the model how to call tools in fallback mode.
func structuredInstructions(defs api.Tools) string {
	var b strings.Builder
	b.WriteString("You can call tools. Always reply with one JSON object: ")
	b.WriteString(`{"tool_calls": [{"name": "<tool name>", "arguments": {...}}], "answer": "<your reply to the user>"}. `)
	b.WriteString(`To call tools, list them in tool_calls and leave answer empty; their results come back in a message starting with "Tool result". `)
	b.WriteString("When you can answer, leave tool_calls empty and write the reply in answer, in the user's language.\n\nTools:\n")
	for _, d := range defs {
		fn, _ := json.Marshal(map[string]any{
			"name":        d.Function.Name,
			"description": d.Function.Description,
			"parameters":  d.Function.Parameters,
		})
		b.Write(fn)
		b.WriteByte('\n')
	}
	return b.String()
}

// structuredMessages rewrites the conversation for a model without native
// tools: assistant tool calls become the JSON the model writes, tool results
// become user messages, and the tool instructions follow the leading system
// messages.
func structuredMessages(msgs []api.Message, defs api.Tools, offer bool) []api.Message {
	out := make([]api.Message, 0, len(msgs)+1)
	for _, m := range msgs {
		switch {
		case m.Role == "assistant" && len(m.ToolCalls) > 0:
			reply := structuredReply{Answer: m.Content}
			for _, c := range m.ToolCalls {
				args, _ := json.Marshal(c.Function.Arguments)
				reply.ToolCalls = append(reply.ToolCalls, structuredCall{Name: c.Function.Name, Arguments: args})
			}
			b, _ := json.Marshal(reply)
			out = append(out, api.Message{Role: "assistant", Content: string(b), Thinking: m.Thinking})
		case m.Role == "tool":
			out = append(out, api.Message{Role: "user", Content: "Tool result (" + m.ToolName + "):\n" + m.Content})
		default:
			out = append(out, m)
		}
	}
	i := 0
	for i < len(out) && out[i].Role == "system" {
		i++
	}
	text := structuredAnswerNow
	if offer {
		text = structuredInstructions(defs)
	}
	return slices.Insert(out, i, api.Message{Role: "system", Content: text})
}

// parseStructured reads a fallback reply. Content that is not the expected
// JSON is taken as a plain answer, so a model that ignores the format still
// reaches the user.
func parseStructured(content string) (answer string, calls []api.ToolCall) {
	var r structuredReply
	if err := json.Unmarshal([]byte(content), &r); err != nil {
		return strings.TrimSpace(content), nil
	}
	for _, c := range r.ToolCalls {
		if c.Name == "" {
			continue
		}
		args := api.NewToolCallFunctionArguments()
		if len(c.Arguments) > 0 && string(c.Arguments) != "null" {
			if err := json.Unmarshal(c.Arguments, &args); err != nil {
				args = api.NewToolCallFunctionArguments()
			}
		}
		calls = append(calls, api.ToolCall{Function: api.ToolCallFunction{Index: len(calls), Name: c.Name, Arguments: args}})
	}
	return r.Answer, calls
}
