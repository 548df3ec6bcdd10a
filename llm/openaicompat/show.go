package openaicompat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/yorozu-bot/yorozu/llm"
)

// Capabilities turns capability names by model (config's
// MODEL_CAPABILITIES, already validated) into llm.Capabilities. A model
// given anything but embedding alone also completes.
func Capabilities(byModel map[string][]string) map[string]llm.Capabilities {
	if len(byModel) == 0 {
		return nil
	}
	out := make(map[string]llm.Capabilities, len(byModel))
	for name, caps := range byModel {
		var names []string
		chat := slices.ContainsFunc(caps, func(s string) bool { return s != string(model.CapabilityEmbedding) })
		if chat && !slices.Contains(caps, string(model.CapabilityCompletion)) {
			names = append(names, string(model.CapabilityCompletion))
		}
		out[name] = llm.CapabilitiesOf(append(names, caps...)...)
	}
	return out
}

// Show answers a model's capabilities as Ollama's /api/show does. The model
// must be among the server's models (GET /models, asked at most every
// 30 s); its capabilities are the configured ones, else those a one-time
// probe found (cached for the life of the Client; failures are not).
func (c *Client) Show(ctx context.Context, req *api.ShowRequest) (*api.ShowResponse, error) {
	name := req.Model
	if err := c.checkListed(ctx, name); err != nil {
		return nil, err
	}
	caps, ok := c.configured[name]
	if !ok {
		c.mu.Lock()
		caps, ok = c.probed[name]
		c.mu.Unlock()
	}
	if !ok {
		var err error
		if caps, err = c.probe(ctx, name); err != nil {
			return nil, err
		}
		c.mu.Lock()
		c.probed[name] = caps
		c.mu.Unlock()
	}
	resp := &api.ShowResponse{Details: api.ModelDetails{Format: "openai-compatible"}}
	for _, s := range caps.All {
		resp.Capabilities = append(resp.Capabilities, model.Capability(s))
	}
	return resp, nil
}

// checkListed returns a *llm.ModelNotFoundError when the server does not
// list name.
func (c *Client) checkListed(ctx context.Context, name string) error {
	c.mu.Lock()
	names, fresh := c.models, !c.listed.IsZero() && c.now().Sub(c.listed) < modelsTTL
	c.mu.Unlock()
	if !fresh || !slices.Contains(names, name) {
		resp, err := c.List(ctx)
		if err != nil {
			return err
		}
		names = names[:0:0]
		for _, m := range resp.Models {
			names = append(names, m.Name)
		}
	}
	if !slices.Contains(names, name) {
		return &llm.ModelNotFoundError{Op: "show", Model: name, Server: c.server}
	}
	return nil
}

// probeTool is the one tool the probe offers.
var probeTool = openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
	Name:        "noop",
	Description: openai.String("Does nothing."),
	Parameters:  shared.FunctionParameters{"type": "object", "properties": map[string]any{}},
})

// probe learns whether name completes and takes tools, with the smallest
// requests there are: one token, offering one tool; when that is refused,
// one token without it. Refusals say what the model cannot do; a server
// that cannot be asked is an error, so nothing wrong is cached.
func (c *Client) probe(ctx context.Context, name string) (llm.Capabilities, error) {
	ask := func(tools bool) error {
		p := openai.ChatCompletionNewParams{
			Model:     shared.ChatModel(name),
			Messages:  []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Reply with OK.")},
			MaxTokens: openai.Int(1),
		}
		if tools {
			p.Tools = []openai.ChatCompletionToolUnionParam{probeTool}
		}
		return c.withRetry(ctx, func() error {
			_, err := c.oa.Chat.Completions.New(ctx, p)
			return err
		})
	}
	refused := func(err error) bool {
		var se *statusError
		return errors.As(err, &se) && se.status >= 400 && se.status < 500 &&
			se.status != http.StatusUnauthorized && se.status != http.StatusForbidden &&
			se.status != http.StatusTooManyRequests && !modelMissing(se.status, strings.ToLower(se.message))
	}
	err := ask(true)
	if err == nil {
		return Capabilities(map[string][]string{name: {string(model.CapabilityTools)}})[name], nil
	}
	if !refused(err) {
		return llm.Capabilities{}, c.interpret(ctx, "show", name, false, err)
	}
	err = ask(false)
	if err == nil {
		return llm.Capabilities{All: []string{string(model.CapabilityCompletion)}}, nil
	}
	if !refused(err) {
		return llm.Capabilities{}, c.interpret(ctx, "show", name, false, err)
	}
	// It refuses chat itself: an embedding model, or one this server
	// cannot run as a chat model.
	return llm.Capabilities{}, nil
}

// Embed posts /embeddings and answers as Ollama's /api/embed does.
func (c *Client) Embed(ctx context.Context, req *api.EmbedRequest) (*api.EmbedResponse, error) {
	p := openai.EmbeddingNewParams{Model: openai.EmbeddingModel(req.Model), EncodingFormat: openai.EmbeddingNewParamsEncodingFormatFloat}
	var n int
	switch in := req.Input.(type) {
	case string:
		p.Input.OfString = openai.String(in)
		n = 1
	case []string:
		p.Input.OfArrayOfStrings = in
		n = len(in)
	case []any:
		for _, v := range in {
			s, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("embed %s: input holds a %T, not text", req.Model, v)
			}
			p.Input.OfArrayOfStrings = append(p.Input.OfArrayOfStrings, s)
		}
		n = len(in)
	default:
		return nil, fmt.Errorf("embed %s: input is a %T, not text", req.Model, req.Input)
	}
	if n == 0 {
		return &api.EmbedResponse{Model: req.Model}, nil
	}
	var res *openai.CreateEmbeddingResponse
	err := c.withRetry(ctx, func() error {
		var err error
		res, err = c.oa.Embeddings.New(ctx, p)
		return err
	})
	if err != nil {
		return nil, c.interpret(ctx, "embed", req.Model, false, err)
	}
	if !res.JSON.Data.Valid() || len(res.Data) != n {
		return nil, &llm.BadAnswerError{Server: c.server, What: fmt.Sprintf("%d embeddings for %d inputs to POST /embeddings", len(res.Data), n)}
	}
	out := &api.EmbedResponse{Model: req.Model, Embeddings: make([][]float32, n), PromptEvalCount: int(res.Usage.PromptTokens)}
	for i, d := range res.Data {
		idx := int(d.Index)
		if !d.JSON.Index.Valid() {
			idx = i
		}
		if idx < 0 || idx >= n || out.Embeddings[idx] != nil {
			return nil, &llm.BadAnswerError{Server: c.server, What: fmt.Sprintf("embedding index %d for %d inputs to POST /embeddings", d.Index, n)}
		}
		v := make([]float32, len(d.Embedding))
		for j, x := range d.Embedding {
			v[j] = float32(x)
		}
		out.Embeddings[idx] = v
	}
	return out, nil
}

// errorMessage finds the message in an error body, whatever shape the
// server uses: OpenAI's {"error": {"message"}}, {"error": "…"},
// vLLM's {"message"}, FastAPI's {"detail"}; else the body's start.
func errorMessage(body []byte) string {
	var doc struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &doc) == nil {
		var inner struct {
			Message string `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(doc.Error, &inner) == nil && inner.Message != "":
			return inner.Message
		case json.Unmarshal(doc.Error, &s) == nil && s != "":
			return s
		case doc.Message != "":
			return doc.Message
		case json.Unmarshal(doc.Detail, &s) == nil && s != "":
			return s
		case len(doc.Detail) > 0:
			return shorten(string(doc.Detail), 300)
		}
	}
	return shorten(string(body), 300)
}
