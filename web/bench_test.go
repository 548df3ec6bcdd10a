package web

import (
	"bufio"
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// BenchmarkStreamFirstChunk times the server's part of a streamed answer:
// from the moment the model's first chunk is released (the fake Ollama's
// gate opens) to the client reading the first chunk event. The rest of the
// turn (context, queue) happens before the gate opens and is not counted.
// It reports the median.
func BenchmarkStreamFirstChunk(b *testing.B) {
	a := newAPI(b)
	var lat []time.Duration
	asked := make(chan chan struct{}, 1)
	a.ollama.Handle(func(req api.ChatRequest) ollamatest.Reply {
		if len(req.Tools) == 0 {
			return ollamatest.Text(`{"tags": [["a","b","c"],["d","e","f"]]}`) // housekeeping
		}
		gate := make(chan struct{})
		asked <- gate
		return ollamatest.Reply{Chunks: []ollamatest.Chunk{{Content: "はい", Wait: gate}, {Content: "。"}}}
	})
	// A benchmark runs more turns a minute than any user may.
	a.limiter.Set(0, time.Minute)
	for b.Loop() {
		resp := a.c.do("POST", "/chat/stream", streamRequest{Message: "こんにちは"})
		sc := bufio.NewScanner(resp.Body)
		// The model was asked: the context is built, the turn waits on the
		// model alone.
		var gate chan struct{}
		select {
		case gate = <-asked:
		case <-time.After(time.Minute):
			b.Fatal("the turn never reached the model")
		}
		start := time.Now()
		close(gate)
		for sc.Scan() {
			if strings.Contains(sc.Text(), `"chunk"`) {
				lat = append(lat, time.Since(start))
				break
			}
		}
		resp.Body.Close()
	}
	reportMedian(b, lat)
}

// BenchmarkLogsPage times one page of GET /api/logs at 100,000 rows, deep
// in the table.
func BenchmarkLogsPage(b *testing.B) {
	a := newAPI(b)
	ctx := context.Background()
	if _, err := a.pool.Exec(ctx, `INSERT INTO api_logs (model, request, response, latency_ms, prompt_tokens, completion_tokens, session_key, created_at)
SELECT 'qwen3:4b', '{"messages": []}', repeat('答え', 200), g % 5000, 500, 200, 'web:bench', now() - g * interval '1 second'
FROM generate_series(1, 100000) g`); err != nil {
		b.Fatal(err)
	}
	if _, err := a.pool.Exec(ctx, "ANALYZE api_logs"); err != nil {
		b.Fatal(err)
	}
	befores := []string{"", "?before=50000", "?before=120"}
	var lat []time.Duration
	i := 0
	for b.Loop() {
		start := time.Now()
		var res logsResponse
		if code := a.c.call("GET", "/api/logs"+befores[i%len(befores)], nil, &res); code != http.StatusOK || len(res.Logs) == 0 {
			b.Fatalf("logs = %d", code)
		}
		lat = append(lat, time.Since(start))
		i++
	}
	reportMedian(b, lat)
}

func reportMedian(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "median-ms")
}
