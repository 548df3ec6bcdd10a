// Package web is yorozu's admin adapter: the HTTP side of the bot. It
// serves the admin page (its screens from html/template and embedded
// static files), the JSON API those screens call, the chat screen's turns
// as server-sent events, River's job UI under /jobs/, and the health
// (/healthz, /readyz) and /metrics endpoints.
//
// Like the Discord bot it only translates: a turn typed on the page goes
// to the same chat router, notes and memory to the same store, each part
// given in Deps by cmd/yorozu. Every route is one line of the route table and
// passes one middleware chain (panic recovery, login, CSRF on writes); a
// part that is missing makes only its routes answer 503.
package web
