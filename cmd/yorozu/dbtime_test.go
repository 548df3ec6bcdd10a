package main

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// dbTimer sits between yorozu and PostgreSQL and times every statement as
// the app waits for it: from the first protocol message of a request to
// the ReadyForQuery that ends it (a pgx query is a parse round-trip the
// first time, then one bind-execute round-trip). It needs neither
// pg_stat_statements nor server logs, so the benchmark tells the same on
// any server.
type dbTimer struct {
	addr     string
	upstream string

	mu    sync.Mutex
	on    bool
	stmts []timedStatement
}

// timedStatement is one request's SQL and how long the app waited for it.
type timedStatement struct {
	sql  string
	took time.Duration
}

func newDBTimer(t testing.TB, dbURL string) *dbTimer {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := &dbTimer{addr: ln.Addr().String(), upstream: u.Host}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go d.pipe(c)
		}
	}()
	return d
}

// url is dbURL pointed at the timer.
func (d *dbTimer) url(dbURL string) string {
	u, _ := url.Parse(dbURL)
	u.Host = d.addr
	return u.String()
}

// start begins keeping statements; stop ends it and returns them.
func (d *dbTimer) start() {
	d.mu.Lock()
	d.on, d.stmts = true, nil
	d.mu.Unlock()
}

func (d *dbTimer) stop() []timedStatement {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.on = false
	return d.stmts
}

func (d *dbTimer) keep(s timedStatement) {
	d.mu.Lock()
	if d.on {
		d.stmts = append(d.stmts, s)
	}
	d.mu.Unlock()
}

// request is a sent request waiting for its ReadyForQuery.
type request struct {
	sql string
	at  time.Time
}

func (d *dbTimer) pipe(c net.Conn) {
	defer c.Close()
	up, err := net.Dial("tcp", d.upstream)
	if err != nil {
		return
	}
	defer up.Close()
	var (
		mu      sync.Mutex
		pending []request
	)
	go func() { // server → app
		defer c.Close()
		r, w := bufio.NewReaderSize(up, 64<<10), bufio.NewWriterSize(c, 64<<10)
		for {
			typ, body, err := readMessage(r, true)
			if err != nil {
				return
			}
			if writeMessage(w, typ, body) != nil {
				return
			}
			if typ == 'Z' {
				mu.Lock()
				if len(pending) > 0 {
					p := pending[0]
					pending = pending[1:]
					d.keep(timedStatement{sql: p.sql, took: time.Since(p.at)})
				}
				mu.Unlock()
			}
			if r.Buffered() == 0 && w.Flush() != nil {
				return
			}
		}
	}()
	// app → server
	r, w := bufio.NewReaderSize(c, 64<<10), bufio.NewWriterSize(up, 64<<10)
	if _, body, err := readMessage(r, false); err != nil || writeMessage(w, 0, body) != nil || w.Flush() != nil {
		return // the startup message; SSL is not spoken here (sslmode=disable)
	}
	prepared := map[string]string{}
	var sql string
	var at time.Time
	for {
		typ, body, err := readMessage(r, true)
		if err != nil {
			return
		}
		if at.IsZero() {
			at = time.Now()
		}
		switch typ {
		case 'P': // Parse: statement name, query
			name, rest := cstring(body)
			sql, _ = cstring(rest)
			prepared[name] = sql
		case 'B': // Bind: portal, statement name
			_, rest := cstring(body)
			name, _ := cstring(rest)
			sql = prepared[name]
		case 'Q':
			sql, _ = cstring(body)
		}
		if writeMessage(w, typ, body) != nil {
			return
		}
		if typ == 'S' || typ == 'Q' {
			mu.Lock()
			pending = append(pending, request{sql: sql, at: at})
			mu.Unlock()
			at = time.Time{}
		}
		if r.Buffered() == 0 && w.Flush() != nil {
			return
		}
	}
}

// readMessage reads one protocol message: a type byte (typed) and a
// length-prefixed body.
func readMessage(r *bufio.Reader, typed bool) (byte, []byte, error) {
	var typ byte
	if typed {
		b, err := r.ReadByte()
		if err != nil {
			return 0, nil, err
		}
		typ = b
	}
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return 0, nil, err
	}
	size := int(binary.BigEndian.Uint32(n[:])) - 4
	if size < 0 || size > 1<<30 {
		return 0, nil, errors.New("bad message length")
	}
	body := make([]byte, size)
	_, err := io.ReadFull(r, body)
	return typ, body, err
}

func writeMessage(w *bufio.Writer, typ byte, body []byte) error {
	if typ != 0 {
		if err := w.WriteByte(typ); err != nil {
			return err
		}
	}
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(body)+4))
	if _, err := w.Write(n[:]); err != nil {
		return err
	}
	_, err := w.Write(body)
	return err
}

func cstring(b []byte) (string, []byte) {
	i := strings.IndexByte(string(b), 0)
	if i < 0 {
		return string(b), nil
	}
	return string(b[:i]), b[i+1:]
}
