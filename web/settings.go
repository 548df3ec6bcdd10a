package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/yorozu-bot/yorozu/db"
)

// settingPrefix marks the page's overrides in app_settings.
const settingPrefix = "setting:"

// settingsChannel is the Postgres notification channel a change is
// announced on, so that every process sharing the database puts it in force.
const settingsChannel = "yorozu_settings"

// SettingDef describes one value the admin page can change. The
// environment gives its default; a value set on the page wins over it until
// it is reset.
type SettingDef struct {
	Key     string // e.g. "default_model"
	Label   string // what the page calls it
	Env     string // the variable whose value is the default, e.g. "DEFAULT_MODEL"
	Default string // the environment's value (or the built-in default)
	Secret  bool   // shown masked, never sent back whole
	// Live: a change takes effect at once; otherwise at the next start.
	Live bool
	// Choices, when set, are the only values allowed.
	Choices []string
	// Channel: the value is a Discord channel's id, which the page picks
	// by name among the channels the bot has seen.
	Channel bool
	// Validate checks a new value; nil accepts any.
	Validate func(string) error
}

// Settings holds the values the page may change, backed by app_settings.
type Settings struct {
	pool *pgxpool.Pool
	defs []SettingDef

	mu       sync.RWMutex
	set      map[string]string // overrides set on the page
	onChange []func(key, value string)
}

// NewSettings loads the page's overrides of defs.
func NewSettings(ctx context.Context, pool *pgxpool.Pool, defs []SettingDef) (*Settings, error) {
	s := &Settings{pool: pool, defs: defs}
	set, err := s.load(ctx)
	if err != nil {
		return nil, err
	}
	s.set = set
	return s, nil
}

// load reads the overrides stored in the database.
func (s *Settings) load(ctx context.Context) (map[string]string, error) {
	keys := make([]string, len(s.defs))
	for i, d := range s.defs {
		keys[i] = settingPrefix + d.Key
	}
	stored, err := db.Settings(ctx, s.pool, keys)
	if err != nil {
		return nil, fmt.Errorf("load settings: %w", err)
	}
	set := map[string]string{}
	for _, d := range s.defs {
		if v, ok := stored[settingPrefix+d.Key]; ok {
			set[d.Key] = string(v)
		}
	}
	return set, nil
}

// Follow keeps this process's settings in step with changes made on any
// process's admin page (Postgres LISTEN/NOTIFY) until ctx ends: each change
// reaches the OnChange functions here too. A lost connection is retried
// with backoff, and the settings are read again on every reconnect, so a
// change made meanwhile is not missed.
func (s *Settings) Follow(ctx context.Context, log *slog.Logger) {
	backoff := time.Second
	failing := false // said once per outage, and when it ends
	for {
		err := s.follow(ctx, func() {
			if failing {
				log.Info("following setting changes of other processes again")
			}
			failing, backoff = false, time.Second
		})
		if ctx.Err() != nil {
			return
		}
		if failing {
			log.Debug("following setting changes of other processes: still retrying", "in", backoff, "err", err)
		} else {
			log.Warn("following setting changes of other processes: retrying until the database answers", "in", backoff, "err", err)
			failing = true
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		backoff = min(2*backoff, time.Minute)
	}
}

// follow listens for changes until its connection fails; listening is
// called once it listens and has read the settings.
func (s *Settings) follow(ctx context.Context, listening func()) error {
	c, err := s.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("follow settings: %w", err)
	}
	// A listening connection is this loop's alone: it never goes back to
	// the pool.
	conn := c.Hijack()
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+settingsChannel); err != nil {
		return fmt.Errorf("follow settings: %w", err)
	}
	for first := true; ; first = false {
		if err := s.reload(ctx); err != nil {
			return err
		}
		if first {
			listening()
		}
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return fmt.Errorf("follow settings: %w", err)
		}
	}
}

// reload reads the overrides again and tells OnChange about each key whose
// value in force changed.
func (s *Settings) reload(ctx context.Context) error {
	fresh, err := s.load(ctx)
	if err != nil {
		return err
	}
	s.mu.Lock()
	var changed []string
	for _, d := range s.defs {
		old, had := s.set[d.Key]
		now, has := fresh[d.Key]
		if had != has || old != now {
			changed = append(changed, d.Key)
		}
	}
	s.set = fresh
	fns := append([]func(string, string){}, s.onChange...)
	s.mu.Unlock()
	for _, k := range changed {
		for _, fn := range fns {
			fn(k, s.Get(k))
		}
	}
	return nil
}

func (s *Settings) def(key string) (SettingDef, bool) {
	for _, d := range s.defs {
		if d.Key == key {
			return d, true
		}
	}
	return SettingDef{}, false
}

// Get returns the value in force: the page's, else the environment's.
func (s *Settings) Get(key string) string {
	s.mu.RLock()
	v, ok := s.set[key]
	s.mu.RUnlock()
	if ok {
		return v
	}
	d, _ := s.def(key)
	return d.Default
}

// OnChange calls fn with each changed key and its value in force, after a
// change is stored. fn must be quick.
func (s *Settings) OnChange(fn func(key, value string)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onChange = append(s.onChange, fn)
}

// errSetting is a bad value; Key names it.
type errSetting struct {
	Key, Msg string
}

func (e *errSetting) Error() string { return e.Key + ": " + e.Msg }

// update applies changes: a value sets the key, nil resets it to the
// environment's. Every value is checked first; one bad value changes
// nothing (the error is an *errSetting naming the key).
func (s *Settings) update(ctx context.Context, changes map[string]*string) error {
	keys := make([]string, 0, len(changes))
	for k := range changes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		d, ok := s.def(k)
		if !ok {
			return &errSetting{k, "この設定はありません"}
		}
		v := changes[k]
		if v == nil {
			continue
		}
		*v = strings.TrimSpace(*v)
		if d.Secret && *v == mask(s.Get(k)) {
			delete(changes, k) // the masked value came back unchanged
			continue
		}
		if len(d.Choices) > 0 && !slices.Contains(d.Choices, *v) {
			return &errSetting{k, "次のどれかにしてください: " + strings.Join(d.Choices, ", ")}
		}
		if d.Validate != nil {
			if err := d.Validate(*v); err != nil {
				return &errSetting{k, err.Error()}
			}
		}
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		for k, v := range changes {
			var err error
			if v == nil {
				err = db.DeleteSetting(ctx, tx, settingPrefix+k)
			} else {
				err = db.SetSetting(ctx, tx, settingPrefix+k, []byte(*v))
			}
			if err != nil {
				return err
			}
		}
		_, err := tx.Exec(ctx, "SELECT pg_notify($1, '')", settingsChannel)
		return err
	})
	if err != nil {
		return fmt.Errorf("update settings: %w", err)
	}
	s.mu.Lock()
	for k, v := range changes {
		if v == nil {
			delete(s.set, k)
		} else {
			s.set[k] = *v
		}
	}
	fns := append([]func(string, string){}, s.onChange...)
	s.mu.Unlock()
	for _, k := range keys {
		if _, changed := changes[k]; changed {
			for _, fn := range fns {
				fn(k, s.Get(k))
			}
		}
	}
	return nil
}

// mask hides a secret, keeping its last four characters when it is long
// enough that they give nothing away.
func mask(v string) string {
	if v == "" {
		return ""
	}
	r := []rune(v)
	if len(r) < 12 {
		return "••••••••"
	}
	return "••••••••" + string(r[len(r)-4:])
}

// settingJSON is one setting as the page shows it.
type settingJSON struct {
	Key     string   `json:"key"`
	Label   string   `json:"label"`
	Env     string   `json:"env"`
	Value   string   `json:"value"`   // in force; masked when secret
	Source  string   `json:"source"`  // "page" or "env": where the value in force comes from
	Default string   `json:"default"` // the environment's value; masked when secret
	Secret  bool     `json:"secret"`
	Applies string   `json:"applies"` // "now" or "restart"
	Choices []string `json:"choices,omitempty"`
	Kind    string   `json:"kind,omitempty"` // "channel": a channel's id, picked by name
}

func (s *Settings) list() []settingJSON {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]settingJSON, len(s.defs))
	for i, d := range s.defs {
		v, onPage := s.set[d.Key]
		j := settingJSON{Key: d.Key, Label: d.Label, Env: d.Env, Value: d.Default, Source: "env",
			Default: d.Default, Secret: d.Secret, Applies: "restart", Choices: d.Choices}
		if d.Channel {
			j.Kind = "channel"
		}
		if onPage {
			j.Value, j.Source = v, "page"
		}
		if d.Live {
			j.Applies = "now"
		}
		if d.Secret {
			j.Value, j.Default = mask(j.Value), mask(j.Default)
		}
		out[i] = j
	}
	return out
}

type settingsResponse struct {
	Settings []settingJSON `json:"settings"`
}

// handleSettings lists the settings with the value in force and where it
// comes from: GET /api/settings.
func (s *Server) handleSettings(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, settingsResponse{Settings: s.opts.Deps.Settings.list()})
}

// handlePutSettings changes settings: PUT /api/settings {"key": "value",
// "other": null}. null returns a key to its environment value.
func (s *Server) handlePutSettings(w http.ResponseWriter, r *http.Request) {
	var raw map[string]json.RawMessage
	if !decodeJSON(w, r, &raw, maxBody) {
		return
	}
	changes := make(map[string]*string, len(raw))
	for k, v := range raw {
		var val *string
		if err := json.Unmarshal(v, &val); err != nil {
			writeFieldError(w, k, "文字列か null を指定してください")
			return
		}
		changes[k] = val
	}
	var bad *errSetting
	err := s.opts.Deps.Settings.update(r.Context(), changes)
	if errors.As(err, &bad) {
		writeFieldError(w, bad.Key, bad.Msg)
		return
	}
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, settingsResponse{Settings: s.opts.Deps.Settings.list()})
}
