package metrics

import (
	"net/http"
	"runtime"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/yorozu-bot/yorozu/llm"
)

// Options configure Metrics.
type Options struct {
	// Version is reported in yorozu_build_info.
	Version string
	// QueueLength is the number of turns waiting for an LLM slot now.
	QueueLength func() int
	// ModelServers is the state of each model server of the pool
	// (llm.Pool.Status); default none.
	ModelServers func() []llm.ServerStatus
	// Gateway says whether this process holds the Discord gateway.
	Gateway func() bool
	// ChannelLogDropped is how many channel log entries were dropped
	// because its queue was full (memory/chanlog); default none.
	ChannelLogDropped func() uint64
	// Now is the clock; default time.Now.
	Now func() time.Time
}

// Metrics holds every series. Its methods are safe for concurrent use and
// quick enough to be called on the path of a reply.
type Metrics struct {
	opts Options
	reg  *prometheus.Registry

	turns         *prometheus.CounterVec
	turnFirstText *prometheus.HistogramVec
	turnDuration  *prometheus.HistogramVec

	llmRequests *prometheus.CounterVec
	llmTTFT     *prometheus.HistogramVec
	llmTokens   *prometheus.CounterVec
	queueWait   prometheus.Observer

	toolCalls    *prometheus.CounterVec
	toolDuration *prometheus.HistogramVec

	reminders        *prometheus.CounterVec
	reminderLateness prometheus.Observer
	jobs             *prometheus.CounterVec

	discordRequests    *prometheus.CounterVec
	discordRateLimited prometheus.Counter
	discordReconnects  prometheus.Counter

	window *window
	tools  *toolNames
	// connected counts gateway connections; every one after the first is
	// a reconnect.
	connected chan struct{}
}

// Buckets, in seconds: a small model on a home GPU answers in seconds, a
// big one on a CPU in minutes.
var (
	answerBuckets   = []float64{0.25, 0.5, 1, 2, 3, 5, 8, 13, 20, 30, 60, 120, 300}
	waitBuckets     = []float64{0.01, 0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}
	toolBuckets     = []float64{0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60}
	latenessBuckets = []float64{1, 5, 15, 60, 300, 900, 3600, 6 * 3600, 86400}
)

// New registers every series in a private registry, with the Go runtime and
// process collectors.
func New(opts Options) *Metrics {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.QueueLength == nil {
		opts.QueueLength = func() int { return 0 }
	}
	if opts.ModelServers == nil {
		opts.ModelServers = func() []llm.ServerStatus { return nil }
	}
	if opts.Gateway == nil {
		opts.Gateway = func() bool { return false }
	}
	if opts.ChannelLogDropped == nil {
		opts.ChannelLogDropped = func() uint64 { return 0 }
	}
	m := &Metrics{
		opts:      opts,
		reg:       prometheus.NewRegistry(),
		window:    newWindow(time.Hour),
		tools:     &toolNames{},
		connected: make(chan struct{}, 1),
	}
	f := factory{m.reg}
	m.turns = f.counter("yorozu_turns_total", "Turns answered, by adapter (discord, web), handler (chat, reminder, …) and outcome.", "adapter", "handler", "outcome")
	m.turnFirstText = f.histogram("yorozu_turn_first_text_seconds", "Time from the start of a turn to its first visible text.", answerBuckets, "adapter")
	m.turnDuration = f.histogram("yorozu_turn_duration_seconds", "Time from the start of a turn to its end.", answerBuckets, "adapter")
	m.llmRequests = f.counter("yorozu_llm_requests_total", "LLM calls, by model, kind (reply, summary, tags, knowledge, embed, job) and outcome.", "model", "kind", "outcome")
	m.llmTTFT = f.histogram("yorozu_llm_time_to_first_token_seconds", "Time from the start of an LLM call to its first streamed token.", answerBuckets, "model")
	m.llmTokens = f.counter("yorozu_llm_tokens_total", "Tokens processed, by model and direction (prompt, completion).", "model", "direction")
	m.queueWait = f.histogram("yorozu_llm_queue_wait_seconds", "Time an LLM call waited for a free slot.", waitBuckets).WithLabelValues()
	m.toolCalls = f.counter("yorozu_tool_calls_total", "Tool calls, by tool and outcome (ok, error, timeout).", "tool", "outcome")
	m.toolDuration = f.histogram("yorozu_tool_duration_seconds", "Time a tool call took.", toolBuckets, "tool")
	m.reminders = f.counter("yorozu_reminders_delivered_total", "Reminder delivery attempts, by outcome (delivered, retry, failed).", "outcome")
	m.reminderLateness = f.histogram("yorozu_reminder_lateness_seconds", "How long after its time a reminder was delivered.", latenessBuckets).WithLabelValues()
	m.jobs = f.counter("yorozu_jobs_total", "Runs of scheduled jobs, by kind (weather, tips, kb_sync, …) and outcome (ok, error).", "kind", "outcome")
	m.discordRequests = f.counter("yorozu_discord_requests_total", "Discord REST requests, by route group and status class (2xx, 4xx, 5xx, error).", "route_group", "status_class")
	m.discordRateLimited = f.counter("yorozu_discord_rate_limited_total", "Discord REST answers 429 Too Many Requests.").WithLabelValues()
	m.discordReconnects = f.counter("yorozu_discord_reconnects_total", "Discord gateway connections after the first.").WithLabelValues()

	m.reg.MustRegister(
		collectors.NewGoCollector(),
		newServerCollector(opts.ModelServers),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "yorozu_llm_queue_length", Help: "LLM calls waiting for a slot now."},
			func() float64 { return float64(opts.QueueLength()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "yorozu_discord_gateway", Help: "1 while this process holds the Discord gateway."},
			func() float64 {
				if opts.Gateway() {
					return 1
				}
				return 0
			}),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "yorozu_channel_log_dropped_total",
			Help: "Channel log messages, edits and deletions dropped because the write queue was full."},
			func() float64 { return float64(opts.ChannelLogDropped()) }),
	)
	info := f.gauge("yorozu_build_info", "Always 1; the labels name the build.", "version", "go_version")
	info.WithLabelValues(opts.Version, runtime.Version()).Set(1)
	return m
}

// Handler serves the registry in the Prometheus exposition format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// factory registers vectors in one registry.
type factory struct{ reg *prometheus.Registry }

func (f factory) counter(name, help string, labels ...string) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	f.reg.MustRegister(c)
	return c
}

func (f factory) gauge(name, help string, labels ...string) *prometheus.GaugeVec {
	g := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labels)
	f.reg.MustRegister(g)
	return g
}

func (f factory) histogram(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets}, labels)
	f.reg.MustRegister(h)
	return h
}
