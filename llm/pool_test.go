package llm_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// gpus starts n fake Ollama servers with the test models, and a pool of
// them named gpu1, gpu2, … with one slot each.
func gpus(t testing.TB, n int) ([]*ollamatest.Server, *llm.Pool) {
	var srvs []*ollamatest.Server
	var servers []llm.PoolServer
	for i := range n {
		srv := newServer(t)
		srvs = append(srvs, srv)
		servers = append(servers, llm.PoolServer{Name: fmt.Sprintf("gpu%d", i+1), Kind: "ollama", Backend: srv.Client(), Slots: 1})
	}
	return srvs, llm.NewPool(llm.PoolOptions{Servers: servers})
}

// turn runs one user's turn in the background.
func turn(p *llm.Pipeline, model, text string, ev *events) chan error {
	done := make(chan error, 1)
	go func() {
		_, err := p.Run(context.Background(), llm.Request{Model: model, Messages: userMsg(text)}, ev.emit)
		done <- err
	}()
	return done
}

func gatedEcho(gate chan struct{}) func(api.ChatRequest) ollamatest.Reply {
	return func(req api.ChatRequest) ollamatest.Reply {
		r := ollamatest.Echo(req)
		r.Gate = gate
		return r
	}
}

func queuedAt(ev *events) []int {
	var out []int
	for _, e := range ev.all() {
		if q, ok := e.(llm.Queued); ok {
			out = append(out, q.Position)
		}
	}
	return out
}

// Two GPUs answer two people at once: both requests are in flight together
// and neither person is told to wait.
func TestPoolTwoServersAnswerTwoUsersAtOnce(t *testing.T) {
	srvs, pool := gpus(t, 2)
	gate := make(chan struct{})
	for _, s := range srvs {
		s.Handle(gatedEcho(gate))
	}
	p := llm.New(llm.Options{Pool: pool})
	var evA, evB events
	doneA := turn(p, toolModel, "Aさんの質問", &evA)
	doneB := turn(p, toolModel, "Bさんの質問", &evB)
	waitFor(t, func() bool { return srvs[0].InFlight() == 1 && srvs[1].InFlight() == 1 })
	close(gate)
	for _, done := range []chan error{doneA, doneB} {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	for who, ev := range map[string]*events{"Aさん": &evA, "Bさん": &evB} {
		if got := strings.Join(ev.texts(), ""); got != who+"の質問" {
			t.Errorf("%s got %q", who, got)
		}
		if q := queuedAt(ev); len(q) > 0 {
			t.Errorf("%s was told to wait (%v) with a GPU free", who, q)
		}
	}
}

// With every GPU busy, the people waiting are told their place in the
// whole pool's line, and all are answered as slots free up.
func TestPoolQueuePositionsCountTheWholePool(t *testing.T) {
	srvs, pool := gpus(t, 2)
	gate := make(chan struct{})
	for _, s := range srvs {
		s.Handle(gatedEcho(gate))
	}
	p := llm.New(llm.Options{Pool: pool})
	evs := make([]*events, 4)
	var dones []chan error
	for i := range evs {
		evs[i] = &events{}
		dones = append(dones, turn(p, toolModel, fmt.Sprintf("質問%d", i+1), evs[i]))
		if i == 1 {
			waitFor(t, func() bool { return srvs[0].InFlight()+srvs[1].InFlight() == 2 })
		}
		if i >= 2 {
			waitFor(t, func() bool { return p.QueueLen() == i-1 })
		}
	}
	if got := queuedAt(evs[2]); !slices.Equal(got, []int{1}) {
		t.Errorf("third person told %v, want [1]", got)
	}
	if got := queuedAt(evs[3]); len(got) == 0 || got[0] != 2 {
		t.Errorf("fourth person told %v, want 2 first", got)
	}
	close(gate)
	for i, done := range dones {
		if err := <-done; err != nil {
			t.Fatalf("person %d: %v", i+1, err)
		}
		if got := strings.Join(evs[i].texts(), ""); got != fmt.Sprintf("質問%d", i+1) {
			t.Errorf("person %d got %q", i+1, got)
		}
	}
}

// A server that fails before anything was shown is taken out and the turn
// is answered by the other, once; a failure after text was shown ends the
// turn as with one server, and nothing is sent twice.
func TestPoolServerFailsAndTheOtherAnswers(t *testing.T) {
	for _, tc := range []struct {
		name     string
		fail     func(*ollamatest.Server)
		failover bool
	}{
		{"connection refused", func(s *ollamatest.Server) { s.Down() }, true},
		{"5xx", func(s *ollamatest.Server) { s.Script(ollamatest.Reply{Status: 503}) }, true},
		{"stream broken before any text", func(s *ollamatest.Server) { s.Script(ollamatest.Reply{Cut: true}) }, true},
		{"error line before any text", func(s *ollamatest.Server) {
			s.Script(ollamatest.Reply{Chunks: []ollamatest.Chunk{{Error: "CUDA error: out of memory"}}})
		}, true},
		{"stream broken after text", func(s *ollamatest.Server) {
			s.Script(ollamatest.Reply{Chunks: []ollamatest.Chunk{{Content: "途中まで"}}, Cut: true})
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srvs, pool := gpus(t, 2)
			p := llm.New(llm.Options{Pool: pool})
			var ev events
			// The first turn goes to gpu1 (both idle, gpu1 first), which works.
			if _, err := p.Run(t.Context(), llm.Request{Model: toolModel, Messages: userMsg("一つ目")}, ev.emit); err != nil {
				t.Fatal(err)
			}
			if srvs[0].ChatCalls() != 1 {
				t.Fatalf("gpu1 got %d calls, gpu2 %d", srvs[0].ChatCalls(), srvs[1].ChatCalls())
			}
			tc.fail(srvs[0])
			ev = events{}
			_, err := p.Run(t.Context(), llm.Request{Model: toolModel, Messages: userMsg("二つ目")}, ev.emit)
			text := strings.Join(ev.texts(), "")
			if !tc.failover {
				if err == nil {
					t.Fatal("a stream broken after text was shown ended without an error")
				}
				if text != "途中まで" || srvs[1].ChatCalls() != 0 {
					t.Errorf("shown %q; gpu2 got %d calls: the answer was started again", text, srvs[1].ChatCalls())
				}
				return
			}
			if err != nil {
				t.Fatalf("the other GPU did not answer: %v", err)
			}
			if text != "二つ目" || srvs[1].ChatCalls() != 1 {
				t.Errorf("shown %q, gpu2 got %d calls; want the answer once, from gpu2", text, srvs[1].ChatCalls())
			}
			st := pool.Status()
			if st[0].Up || st[0].Err == nil || !st[1].Up {
				t.Errorf("status = %+v, want gpu1 out with its error, gpu2 up", st)
			}
			// While gpu1 is out, turns go to gpu2 without trying it.
			before := srvs[0].ChatCalls()
			if _, err := p.Run(t.Context(), llm.Request{Model: toolModel, Messages: userMsg("三つ目")}, nil); err != nil {
				t.Fatal(err)
			}
			if srvs[0].ChatCalls() != before {
				t.Error("a turn went to the server taken out")
			}
		})
	}
}

// A turn goes to a server that has its model; the model list offered for
// chat is every server's, with the servers that have each model, and
// without models that only embed.
func TestPoolModelsAcrossServers(t *testing.T) {
	gpu1, gpu2 := ollamatest.New(t), ollamatest.New(t)
	gpu1.AddModel("qwen3:4b", "completion", "tools")
	gpu1.AddModel("bge-m3", "embedding")
	gpu2.AddModel("qwen3:4b", "completion", "tools")
	gpu2.AddModel("gemma3:12b", "completion", "vision")
	pool := llm.NewPool(llm.PoolOptions{Servers: []llm.PoolServer{
		{Name: "gpu1", Backend: gpu1.Client()}, {Name: "gpu2", Backend: gpu2.Client()},
	}})
	pool.Refresh(t.Context())
	p := llm.New(llm.Options{Pool: pool})

	var ev events
	if _, err := p.Run(t.Context(), llm.Request{Model: "gemma3:12b", Messages: userMsg("画像の話")}, ev.emit); err != nil {
		t.Fatal(err)
	}
	if gpu1.ChatCalls() != 0 || gpu2.ChatCalls() != 1 {
		t.Errorf("gemma3 calls: gpu1 %d, gpu2 %d; want gpu2 only", gpu1.ChatCalls(), gpu2.ChatCalls())
	}
	caps, err := p.Capabilities(t.Context(), "gemma3:12b")
	if err != nil || !caps.Vision {
		t.Errorf("gemma3 capabilities = %+v, %v", caps, err)
	}

	models, err := pool.ChatModels(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, m := range models {
		labels = append(labels, m.Label)
	}
	want := []string{"gemma3:12b (gpu2)", "qwen3:4b (gpu1, gpu2)"}
	if !slices.Equal(labels, want) {
		t.Errorf("chat models = %q, want %q", labels, want)
	}

	// The embedding model is found on the server that has it.
	emb, err := p.BackgroundClient().Embed(t.Context(), &api.EmbedRequest{Model: "bge-m3", Input: "こんにちは"})
	if err != nil || len(emb.Embeddings) != 1 {
		t.Errorf("embed = %+v, %v", emb, err)
	}
}

// Summaries and tags wait behind every user turn of the pool.
func TestPoolBackgroundWaitsBehindTurns(t *testing.T) {
	srvs, pool := gpus(t, 2)
	gates := []chan struct{}{make(chan struct{}), make(chan struct{})}
	for i, s := range srvs {
		s.Script(ollamatest.Reply{Chunks: []ollamatest.Chunk{{Content: "ok"}}, Gate: gates[i]})
	}
	p := llm.New(llm.Options{Pool: pool})
	doneA := turn(p, toolModel, "A", &events{})
	waitFor(t, func() bool { return srvs[0].InFlight() == 1 })
	doneB := turn(p, toolModel, "B", &events{})
	waitFor(t, func() bool { return srvs[1].InFlight() == 1 })

	var mu sync.Mutex
	var order []string
	done := func(who string) {
		mu.Lock()
		order = append(order, who)
		mu.Unlock()
	}
	bg := make(chan error, 1)
	go func() {
		bg <- p.BackgroundClient().Chat(context.Background(), &api.ChatRequest{Model: toolModel, Messages: userMsg("summary")},
			func(r api.ChatResponse) error {
				if r.Done {
					done("summary")
				}
				return nil
			})
	}()
	waitFor(t, func() bool { return p.QueueLen() == 1 })
	evC := &events{}
	evC.on = func(e llm.Event) {
		if _, ok := e.(llm.Done); ok {
			done("C")
		}
	}
	doneC := turn(p, toolModel, "C", evC)
	waitFor(t, func() bool { return p.QueueLen() == 2 })
	if got := queuedAt(evC); !slices.Equal(got, []int{1}) {
		t.Errorf("C was told %v, want [1]: ahead of the summary", got)
	}
	// gpu1 frees up: C, who came after the summary, goes first.
	close(gates[0])
	for _, ch := range []chan error{doneA, doneC, bg} {
		if err := <-ch; err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	if !slices.Equal(order, []string{"C", "summary"}) {
		t.Errorf("order = %v, want C before the summary", order)
	}
	mu.Unlock()
	close(gates[1])
	if err := <-doneB; err != nil {
		t.Fatal(err)
	}
}
