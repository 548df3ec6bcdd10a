package metrics

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/llm"
)

const dashboardPath = "../deploy/grafana/yorozu.json"

// dashboard is the part of a Grafana dashboard the test reads.
type dashboard struct {
	UID           string  `json:"uid"`
	Title         string  `json:"title"`
	SchemaVersion int     `json:"schemaVersion"`
	Panels        []panel `json:"panels"`
	Templating    struct {
		List []struct {
			Name       string `json:"name"`
			Type       string `json:"type"`
			Definition string `json:"definition"`
		} `json:"list"`
	} `json:"templating"`
}

type panel struct {
	ID         int    `json:"id"`
	Type       string `json:"type"`
	Title      string `json:"title"`
	Datasource *struct {
		Type string `json:"type"`
		UID  string `json:"uid"`
	} `json:"datasource"`
	GridPos struct{ H, W, X, Y int } `json:"gridPos"`
	Targets []struct {
		Expr  string `json:"expr"`
		RefID string `json:"refId"`
	} `json:"targets"`
}

// exercised is a registry in which every yorozu series has a sample.
func exercised(t *testing.T) *prometheus.Registry {
	t.Helper()
	m := New(Options{Version: "test", ModelServers: func() []llm.ServerStatus {
		return []llm.ServerStatus{{Name: "gpu1", Slots: 2, InUse: 1, Up: true, Models: []string{"qwen3:4b"}}}
	}})
	m.SetTools([]string{"web_search"})
	turn := m.Turns("chat", chat.HandlerFunc(func(_ context.Context, _ chat.Request, emit func(llm.Event) error) error {
		_ = emit(llm.Text{Text: "x"})
		return emit(llm.ToolFinished{Name: "web_search", Duration: time.Second})
	}))
	if err := turn.Handle(context.Background(), chat.Request{Source: "discord"}, nil); err != nil {
		t.Fatal(err)
	}
	m.LLMCall(llm.Call{Model: "m", PromptTokens: 10, CompletionTokens: 5, FirstToken: time.Second, EvalDuration: time.Second})
	m.QueueWait(time.Second)
	m.JobDone("weather", nil)
	m.ReminderDone("delivered", time.Second)
	m.DiscordConnected()
	m.DiscordConnected()
	rt := m.DiscordTransport(roundTripFunc(func(*http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: http.StatusTooManyRequests, Body: http.NoBody}, nil
	}))
	if _, err := rt.RoundTrip(httptest.NewRequest(http.MethodGet, "https://discord.com/api/v10/gateway", nil)); err != nil {
		t.Fatal(err)
	}
	return m.reg
}

// TestDashboardQueriesExistingSeries: deploy/grafana/yorozu.json is a
// dashboard Grafana can import, every series its queries name exists in
// the registry, and every yorozu series has a panel.
func TestDashboardQueriesExistingSeries(t *testing.T) {
	raw, err := os.ReadFile(dashboardPath)
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("%s is not valid JSON: %v", dashboardPath, err)
	}
	if d.UID == "" || d.Title == "" || d.SchemaVersion == 0 {
		t.Errorf("dashboard uid %q title %q schemaVersion %d: all are needed to import it", d.UID, d.Title, d.SchemaVersion)
	}
	vars := map[string]bool{}
	for _, v := range d.Templating.List {
		vars[v.Name] = true
	}
	if !vars["datasource"] || !vars["instance"] {
		t.Errorf("templating variables %v, want datasource and instance", vars)
	}

	reg := exercised(t)
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]dto.MetricType{}
	for _, f := range fams {
		types[f.GetName()] = f.GetType()
	}
	// Every registered yorozu series was exercised, so the check below
	// sees them all.
	descs := make(chan *prometheus.Desc, 1000)
	reg.Describe(descs)
	close(descs)
	fqName := regexp.MustCompile(`fqName: "([^"]+)"`)
	for desc := range descs {
		if m := fqName.FindStringSubmatch(desc.String()); m != nil && strings.HasPrefix(m[1], "yorozu_") {
			if _, ok := types[m[1]]; !ok {
				t.Errorf("%s is registered but has no sample here: exercise it in exercised", m[1])
			}
		}
	}

	// family is the family a series name belongs to: a histogram's or a
	// summary's _bucket, _sum and _count are its own.
	family := func(name string) (string, bool) {
		if _, ok := types[name]; ok {
			return name, true
		}
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			base, ok := strings.CutSuffix(name, suffix)
			if ok && (types[base] == dto.MetricType_HISTOGRAM || types[base] == dto.MetricType_SUMMARY) {
				return base, true
			}
		}
		return "", false
	}
	used := map[string]bool{}
	check := func(where, expr string) {
		for _, name := range seriesNames(expr) {
			f, ok := family(name)
			if !ok {
				t.Errorf("%s: %s is not a series yorozu serves (in %q)", where, name, expr)
			}
			used[f] = true
		}
	}
	for _, v := range d.Templating.List {
		check("variable "+v.Name, v.Definition)
	}
	ids := map[int]bool{}
	for _, p := range d.Panels {
		if ids[p.ID] {
			t.Errorf("panel id %d used twice", p.ID)
		}
		ids[p.ID] = true
		if p.Type == "row" {
			continue
		}
		if p.Datasource == nil || p.Datasource.Type != "prometheus" || p.Datasource.UID != "${datasource}" {
			t.Errorf("panel %q: datasource %+v, want the ${datasource} variable", p.Title, p.Datasource)
		}
		if p.GridPos.W <= 0 || p.GridPos.H <= 0 || p.GridPos.X+p.GridPos.W > 24 {
			t.Errorf("panel %q: gridPos %+v does not fit the 24-column grid", p.Title, p.GridPos)
		}
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		refs := map[string]bool{}
		for _, tg := range p.Targets {
			if tg.Expr == "" || tg.RefID == "" || refs[tg.RefID] {
				t.Errorf("panel %q: query %+v needs an expr and its own refId", p.Title, tg)
			}
			refs[tg.RefID] = true
			check("panel "+p.Title, tg.Expr)
		}
	}
	for name := range types {
		if strings.HasPrefix(name, "yorozu_") && !used[name] {
			t.Errorf("%s has no panel on the dashboard", name)
		}
	}
}

// seriesNames are the metric names a PromQL expression reads: the yorozu,
// Go runtime and process ones, not label names in matchers or groupings.
func seriesNames(expr string) []string {
	expr = regexp.MustCompile(`\{[^}]*\}`).ReplaceAllString(expr, "")
	expr = regexp.MustCompile(`\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`).ReplaceAllString(expr, "")
	var names []string
	for _, n := range regexp.MustCompile(`\b(?:yorozu|go|process)_[a-zA-Z0-9_:]*`).FindAllString(expr, -1) {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}

func TestSeriesNames(t *testing.T) {
	got := seriesNames(`histogram_quantile(0.95, sum by (le, go_version) (rate(yorozu_turn_first_text_seconds_bucket{instance=~"$instance", process_x="1"}[5m]))) / go_goroutines`)
	if want := []string{"yorozu_turn_first_text_seconds_bucket", "go_goroutines"}; !slices.Equal(got, want) {
		t.Errorf("seriesNames = %q, want %q", got, want)
	}
}
