// Package web serves yorozu's HTTP side: liveness (/healthz), readiness
// (/readyz) and metrics (/metrics) now, the admin page later. It is an
// adapter like the Discord bot: it talks HTTP and hands work to the same
// pipeline.
package web
