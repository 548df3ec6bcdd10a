package web

import (
	"fmt"
	"net/http"
	"runtime"
)

// handleMetrics writes the gauges in the Prometheus text format.
func (s *Server) handleMetrics(w http.ResponseWriter, r *http.Request) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	builtin := []Gauge{
		{Name: "yorozu_uptime_seconds", Help: "Seconds since the HTTP server started.", Fn: func() float64 {
			return s.opts.Now().Sub(s.started).Seconds()
		}},
		{Name: "yorozu_goroutines", Help: "Goroutines in the process.", Fn: func() float64 { return float64(runtime.NumGoroutine()) }},
		{Name: "yorozu_heap_bytes", Help: "Bytes of allocated heap objects.", Fn: func() float64 { return float64(ms.HeapAlloc) }},
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	for _, g := range append(builtin, s.opts.Gauges...) {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s gauge\n%s %g\n", g.Name, g.Help, g.Name, g.Name, g.Fn())
	}
}
