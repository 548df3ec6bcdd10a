// Package health checks what yorozu depends on outside itself — DATA_DIR,
// the database, Discord, Ollama and the models, the search backend, JMA,
// where the scheduled posts go, MCP servers — and says what to fix.
//
// serve runs a Checker in the background and shows its findings in the
// log, /readyz and the admin page's status; `yorozu doctor` prints all of
// them as a checklist (Doctor); `yorozu healthcheck` asks a running yorozu
// for /readyz (Probe). Every finding says what was found and what to do,
// in Japanese and English.
package health
