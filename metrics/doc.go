// Package metrics keeps yorozu's Prometheus series in one private registry
// and serves them. The other packages know nothing of Prometheus: each
// exposes a hook (router middleware, recorder, scheduler callbacks, an HTTP
// transport) and cmd/yorozu plugs the methods of one *Metrics into them.
// It also keeps the last hour's times to first text and generation speeds
// for the /stats command.
package metrics
