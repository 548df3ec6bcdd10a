package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm"
)

// channelJSON is a server, channel, thread or DM with its own persona and
// model (null: inherited) and what is in force there.
type channelJSON struct {
	Kind      string  `json:"kind"` // server, channel, thread, dm
	GuildID   string  `json:"guild_id"`
	ChannelID string  `json:"channel_id"` // "" for a server
	ParentID  string  `json:"parent_id"`
	Persona   *string `json:"persona"`
	Model     *string `json:"model"`
	// Mode is how yorozu listens there (mention, free, thread; null:
	// inherited), channels and threads only.
	Mode *string `json:"mode"`
	// Talk gives turns there the channel's recent talk (null: inherited),
	// servers, channels and threads.
	Talk *bool `json:"talk"`
	// PersonaInForce and ModelInForce apply there, coming from
	// PersonaFrom / ModelFrom: thread, channel, server or default.
	PersonaInForce string     `json:"persona_in_force"`
	PersonaFrom    string     `json:"persona_from"`
	ModelInForce   string     `json:"model_in_force"`
	ModelFrom      string     `json:"model_from"`
	ModeInForce    string     `json:"mode_in_force"`
	ModeFrom       string     `json:"mode_from"`
	TalkInForce    bool       `json:"talk_in_force"`
	TalkFrom       string     `json:"talk_from"`
	UpdatedBy      string     `json:"updated_by"`
	UpdatedAt      *time.Time `json:"updated_at"`
	LastActive     *time.Time `json:"last_active"`
}

// channelRequest changes a place's settings: an absent field is left as it
// is, "" returns it to the inherited value.
type channelRequest struct {
	Persona *string `json:"persona"`
	Model   *string `json:"model"`
	Mode    *string `json:"mode"` // a channel's or thread's only
	Talk    *string `json:"talk"` // "on", "off" or "" (inherited); not a DM's
}

// modelCheckTimeout bounds asking Ollama whether a model is installed.
const modelCheckTimeout = 5 * time.Second

// handleChannels lists every place the page knows: GET /api/channels.
func (s *Server) handleChannels(w http.ResponseWriter, r *http.Request) {
	cs, err := db.KnownChannels(r.Context(), s.opts.Pool)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	rows := make([]db.ChannelSetting, len(cs))
	for i, c := range cs {
		rows[i] = settingOf(c)
	}
	out := make([]channelJSON, len(cs))
	for i, c := range cs {
		out[i] = s.toChannelJSON(c, rows)
	}
	writeJSON(w, http.StatusOK, out)
}

// handlePutChannel changes a channel's, thread's or DM's persona and model:
// PUT /api/channels/{id} {"persona": "…", "model": "…"}.
func (s *Server) handlePutChannel(w http.ResponseWriter, r *http.Request) {
	s.putPlace(w, r, func(ctx context.Context) (db.KnownChannel, error) {
		return db.KnownChannelByID(ctx, s.opts.Pool, r.PathValue("id"))
	})
}

// handlePutServer changes a server's default persona and model:
// PUT /api/servers/{id} {"persona": "…", "model": "…"}.
func (s *Server) handlePutServer(w http.ResponseWriter, r *http.Request) {
	s.putPlace(w, r, func(ctx context.Context) (db.KnownChannel, error) {
		return db.KnownServerByID(ctx, s.opts.Pool, r.PathValue("id"))
	})
}

// handleDeleteChannel returns a channel to inherited values: DELETE
// /api/channels/{id}.
func (s *Server) handleDeleteChannel(w http.ResponseWriter, r *http.Request) {
	s.resetPlace(w, r, func(ctx context.Context) (db.KnownChannel, error) {
		return db.KnownChannelByID(ctx, s.opts.Pool, r.PathValue("id"))
	})
}

// handleDeleteServer removes a server's defaults: DELETE /api/servers/{id}.
func (s *Server) handleDeleteServer(w http.ResponseWriter, r *http.Request) {
	s.resetPlace(w, r, func(ctx context.Context) (db.KnownChannel, error) {
		return db.KnownServerByID(ctx, s.opts.Pool, r.PathValue("id"))
	})
}

func (s *Server) putPlace(w http.ResponseWriter, r *http.Request, find func(context.Context) (db.KnownChannel, error)) {
	var req channelRequest
	if !decodeJSON(w, r, &req, maxBody) {
		return
	}
	if req.Persona != nil {
		p := strings.TrimSpace(*req.Persona)
		if n := utf8.RuneCountInString(p); n > db.MaxPersonaChars {
			writeFieldError(w, "persona", fmt.Sprintf("%d 文字までです（いま %d 文字）", db.MaxPersonaChars, n))
			return
		}
		req.Persona = &p
	}
	place, err := find(r.Context())
	if err != nil {
		s.notFoundOr500(w, r, err)
		return
	}
	if req.Mode != nil {
		m := strings.TrimSpace(*req.Mode)
		switch {
		case m != "" && !db.ValidMode(m):
			writeFieldError(w, "mode", "mention・free・thread のどれかです")
			return
		case m != "" && (place.ChannelID == "" || place.GuildID == ""):
			writeFieldError(w, "mode", "モードはサーバーのチャンネルとスレッドにだけ設定できます")
			return
		}
		req.Mode = &m
	}
	if req.Talk != nil {
		switch v := strings.TrimSpace(*req.Talk); {
		case v != "" && v != db.TalkOn && v != db.TalkOff:
			writeFieldError(w, "talk", "on・off のどちらかです")
			return
		case v != "" && place.GuildID == "":
			writeFieldError(w, "talk", "DM ではこれまでの会話をいつも読みます")
			return
		default:
			req.Talk = &v
		}
	}
	if req.Model != nil {
		m := strings.TrimSpace(*req.Model)
		req.Model = &m
		if m != "" && !s.checkModel(w, r, m) {
			return
		}
	}
	s.updatePlace(w, r, place, req)
}

func (s *Server) resetPlace(w http.ResponseWriter, r *http.Request, find func(context.Context) (db.KnownChannel, error)) {
	place, err := find(r.Context())
	if err != nil {
		s.notFoundOr500(w, r, err)
		return
	}
	reset := channelRequest{Persona: new(string), Model: new(string), Talk: new(string)}
	if place.ChannelID != "" {
		reset.Mode = new(string)
	}
	s.updatePlace(w, r, place, reset)
}

// updatePlace stores req for place and answers with the place as it now is.
func (s *Server) updatePlace(w http.ResponseWriter, r *http.Request, place db.KnownChannel, req channelRequest) {
	saved, err := db.UpdateChannelSetting(r.Context(), s.opts.Pool, db.ChannelSettingUpdate{
		GuildID: place.GuildID, ChannelID: place.ChannelID, ParentID: place.ParentID,
		Persona: req.Persona, Model: req.Model, Mode: req.Mode, Talk: req.Talk, By: "admin",
	})
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	if s.opts.Deps.ChannelSaved != nil {
		s.opts.Deps.ChannelSaved(r.Context(), saved)
	}
	cs, err := db.KnownChannels(r.Context(), s.opts.Pool)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	rows := make([]db.ChannelSetting, len(cs))
	for i, c := range cs {
		rows[i] = settingOf(c)
	}
	for _, c := range cs {
		if c.GuildID == place.GuildID && c.ChannelID == place.ChannelID {
			writeJSON(w, http.StatusOK, s.toChannelJSON(c, rows))
			return
		}
	}
	s.internalError(w, r, fmt.Errorf("channel %s/%s gone after its update", place.GuildID, place.ChannelID))
}

// checkModel answers 400 naming the pull command when Ollama lacks model,
// 503 when it cannot be asked, and returns whether the model may be set.
func (s *Server) checkModel(w http.ResponseWriter, r *http.Request, model string) bool {
	if s.opts.Deps.Models == nil {
		writeError(w, http.StatusServiceUnavailable, "Ollama が使えないため、モデルを確かめられません。")
		return false
	}
	ctx, cancel := context.WithTimeout(r.Context(), modelCheckTimeout)
	defer cancel()
	err := llm.CheckInstalled(ctx, s.opts.Deps.Models, model)
	if missing, ok := llm.MissingModel(err); ok {
		if missing.Server != "" {
			writeFieldError(w, "model", fmt.Sprintf("%s はモデルサーバーにありません。サーバーの一覧にあるモデル名を選んでください", model))
			return false
		}
		writeFieldError(w, "model", fmt.Sprintf("%s はインストールされていません。サーバーで `%s` を実行してください", model, missing.PullCommand()))
		return false
	}
	if errors.Is(err, llm.ErrUnavailable) {
		writeError(w, http.StatusServiceUnavailable, "モデルサーバーに接続できないため、モデルを確かめられません。")
		return false
	}
	if err != nil {
		s.internalError(w, r, err)
		return false
	}
	return true
}

func settingOf(c db.KnownChannel) db.ChannelSetting {
	return db.ChannelSetting{GuildID: c.GuildID, ChannelID: c.ChannelID, ParentID: c.ParentID, Persona: c.Persona, Model: c.Model, Mode: c.Mode, Talk: c.Talk}
}

func (s *Server) toChannelJSON(c db.KnownChannel, rows []db.ChannelSetting) channelJSON {
	out := channelJSON{GuildID: c.GuildID, ChannelID: c.ChannelID, ParentID: c.ParentID, Persona: c.Persona, Model: c.Model,
		Mode: c.Mode, Talk: c.Talk, UpdatedBy: c.UpdatedBy, UpdatedAt: c.UpdatedAt, LastActive: c.LastActive}
	switch {
	case c.ChannelID == "":
		out.Kind = "server"
	case c.GuildID == "":
		out.Kind = "dm"
	case c.ParentID != "":
		out.Kind = "thread"
	default:
		out.Kind = "channel"
	}
	e := db.Resolve(rows, c.GuildID, c.ChannelID, c.ParentID)
	out.PersonaInForce, out.PersonaFrom, out.ModelInForce, out.ModelFrom = e.Persona, e.PersonaFrom, e.Model, e.ModelFrom
	out.ModeInForce, out.ModeFrom = e.Mode, e.ModeFrom
	out.TalkInForce, out.TalkFrom = e.Talk, e.TalkFrom
	if out.ModelInForce == "" && s.opts.Deps.Settings != nil {
		out.ModelInForce = s.opts.Deps.Settings.Get("default_model")
	}
	return out
}
