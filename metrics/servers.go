package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/yorozu-bot/yorozu/llm"
)

// serverCollector reads the model servers of the pool when scraped.
type serverCollector struct {
	servers func() []llm.ServerStatus
	up      *prometheus.Desc
	slots   *prometheus.Desc
	inUse   *prometheus.Desc
	models  *prometheus.Desc
}

func newServerCollector(servers func() []llm.ServerStatus) *serverCollector {
	label := []string{"server"}
	return &serverCollector{
		servers: servers,
		up:      prometheus.NewDesc("yorozu_model_server_up", "1 while the model server is in the pool, 0 while it is taken out after failing.", label, nil),
		slots:   prometheus.NewDesc("yorozu_model_server_slots", "Answers the model server makes at once (its slots).", label, nil),
		inUse:   prometheus.NewDesc("yorozu_model_server_slots_in_use", "Slots of the model server this process uses now.", label, nil),
		models:  prometheus.NewDesc("yorozu_model_server_models", "Models the model server listed last.", label, nil),
	}
}

func (c *serverCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.up, c.slots, c.inUse, c.models} {
		ch <- d
	}
}

func (c *serverCollector) Collect(ch chan<- prometheus.Metric) {
	for _, s := range c.servers() {
		up := 0.0
		if s.Up {
			up = 1
		}
		ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, up, s.Name)
		ch <- prometheus.MustNewConstMetric(c.slots, prometheus.GaugeValue, float64(s.Slots), s.Name)
		ch <- prometheus.MustNewConstMetric(c.inUse, prometheus.GaugeValue, float64(s.InUse), s.Name)
		ch <- prometheus.MustNewConstMetric(c.models, prometheus.GaugeValue, float64(len(s.Models)), s.Name)
	}
}
