package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/ollama/ollama/api"
)

// installedTTL is how long the list of installed models (/api/tags) is
// trusted before VisionModels asks again.
const installedTTL = time.Minute

// installedCache remembers the last /api/tags answer.
type installedCache struct {
	mu    sync.Mutex
	names []string
	at    time.Time
}

// VisionModels returns the installed models (/api/tags) whose capabilities
// (/api/show) include vision, sorted. The list is asked for at most once a
// minute and each model's capabilities once (Capabilities' cache); a model
// whose capabilities cannot be read is left out. It fails when the client
// cannot list models or Ollama cannot be reached.
func (p *Pipeline) VisionModels(ctx context.Context) ([]string, error) {
	names, err := p.installed(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, name := range names {
		if c, err := p.Capabilities(ctx, name); err == nil && c.Vision {
			out = append(out, name)
		}
	}
	return out, nil
}

func (p *Pipeline) installed(ctx context.Context) ([]string, error) {
	c := &p.installedModels
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.names != nil && p.now().Sub(c.at) < installedTTL {
		return c.names, nil
	}
	callCtx, cancel := context.WithTimeout(ctx, p.callTimeout)
	defer cancel()
	names, err := InstalledModels(callCtx, p.pool)
	if err != nil {
		return nil, err
	}
	c.names, c.at = names, p.now()
	return names, nil
}

// withoutImages returns msgs with no images, copying only when one has
// some: a model without the vision capability would refuse the request.
func withoutImages(msgs []api.Message) []api.Message {
	if !hasImages(msgs) {
		return msgs
	}
	out := slices.Clone(msgs)
	for i := range out {
		out[i].Images = nil
	}
	return out
}

func hasImages(msgs []api.Message) bool {
	for _, m := range msgs {
		if len(m.Images) > 0 {
			return true
		}
	}
	return false
}

// requestJSON is the chat request as the call log keeps it: images are
// replaced by a line giving their size, so a turn with pictures does not
// store megabytes of base64 with every call. tools is the JSON of
// req.Tools when made already, else nil.
func requestJSON(req *api.ChatRequest, tools []byte) ([]byte, error) {
	if !hasImages(req.Messages) {
		return chatBody(req, tools)
	}
	cp := *req
	cp.Messages = withoutImages(req.Messages)
	body, err := chatBody(&cp, tools)
	if err != nil {
		return nil, err
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, err
	}
	var msgs []map[string]json.RawMessage
	if err := json.Unmarshal(doc["messages"], &msgs); err != nil {
		return nil, err
	}
	for i, m := range req.Messages {
		if len(m.Images) == 0 {
			continue
		}
		notes := make([]string, len(m.Images))
		for j, img := range m.Images {
			notes[j] = fmt.Sprintf("<image, %d bytes>", len(img))
		}
		if msgs[i]["images"], err = json.Marshal(notes); err != nil {
			return nil, err
		}
	}
	if doc["messages"], err = json.Marshal(msgs); err != nil {
		return nil, err
	}
	return json.Marshal(doc)
}
