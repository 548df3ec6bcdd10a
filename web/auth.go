package web

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/crypto/bcrypt"

	"github.com/yorozu-bot/yorozu/config"
	"github.com/yorozu-bot/yorozu/db"
)

const (
	// passwordSettingKey is where the admin password's bcrypt hash is kept
	// in app_settings.
	passwordSettingKey = "admin_password_bcrypt"
	// MinPasswordLength is the shortest password set-password accepts, the
	// same as ADMIN_PASSWORD's.
	MinPasswordLength = config.MinAdminPasswordLength
	// sessionIdle ends a login that made no request for this long.
	sessionIdle = 30 * 24 * time.Hour
	// sessionCookie names the login cookie.
	sessionCookie = "yorozu_session"
	// touchEvery bounds how often a session's last_seen_at is written.
	touchEvery = time.Minute
)

// Password says what EnsurePassword did.
type Password struct {
	// Generated is the random password made because none was stored and
	// ADMIN_PASSWORD is unset; "" when none was made (by this process).
	Generated string
	// Replaced says ADMIN_PASSWORD differed from the stored password: it
	// replaced it, and every login made with the old one was ended.
	Replaced bool
}

// EnsurePassword makes the stored admin password hash match the
// configuration: with ADMIN_PASSWORD (envPassword) set, its hash is stored
// when it is not already, ending every login; without it, an existing hash
// is kept, and when there is none a random password is generated, its hash
// stored and the password returned so the caller hands it to the admin once.
// Several processes starting at once agree on one password; only the one
// that stored it gets it back. An unchanged password keeps the logins.
func EnsurePassword(ctx context.Context, pool *pgxpool.Pool, envPassword string) (Password, error) {
	stored, err := db.Setting(ctx, pool, passwordSettingKey)
	if err != nil && !errors.Is(err, db.ErrNotFound) {
		return Password{}, err
	}
	if envPassword != "" {
		if stored != nil && bcrypt.CompareHashAndPassword(stored, []byte(envPassword)) == nil {
			return Password{}, nil
		}
		hash, err := hashPassword(envPassword)
		if err != nil {
			return Password{}, fmt.Errorf("ADMIN_PASSWORD: %w", err)
		}
		if _, err := db.ReplaceAdminPassword(ctx, pool, passwordSettingKey, hash); err != nil {
			return Password{}, err
		}
		return Password{Replaced: stored != nil}, nil
	}
	if stored != nil {
		return Password{}, nil
	}
	pw := rand.Text()
	hash, err := hashPassword(pw)
	if err != nil {
		return Password{}, err
	}
	got, err := db.EnsureSetting(ctx, pool, passwordSettingKey, hash)
	if err != nil {
		return Password{}, err
	}
	if string(got) != string(hash) {
		return Password{}, nil // another process generated one first
	}
	return Password{Generated: pw}, nil
}

// SetPassword replaces the admin password and ends every login.
func SetPassword(ctx context.Context, pool *pgxpool.Pool, password string) error {
	password = strings.TrimRight(password, "\r\n")
	if n := len([]rune(password)); n < MinPasswordLength {
		return fmt.Errorf("set admin password: at least %d characters are needed, got %d", MinPasswordLength, n)
	}
	hash, err := hashPassword(password)
	if err != nil {
		return err
	}
	_, err = db.ReplaceAdminPassword(ctx, pool, passwordSettingKey, hash)
	return err
}

func hashPassword(pw string) ([]byte, error) {
	if len(pw) > 72 {
		return nil, errors.New("a password may be at most 72 bytes long")
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(pw), bcrypt.DefaultCost)
	if err != nil {
		return nil, fmt.Errorf("hash admin password: %w", err)
	}
	return hash, nil
}

type sessionKey struct{}

// currentSession is the login the request was made with; the chain put it
// in the context.
func currentSession(ctx context.Context) (db.AdminSession, bool) {
	s, ok := ctx.Value(sessionKey{}).(db.AdminSession)
	return s, ok
}

func hashToken(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// session returns the live login of the request's cookie, moving its idle
// deadline forward (at most once a minute, re-sending the cookie).
func (s *Server) session(w http.ResponseWriter, r *http.Request) (db.AdminSession, bool) {
	c, err := r.Cookie(sessionCookie)
	if err != nil || c.Value == "" || s.opts.Pool == nil {
		return db.AdminSession{}, false
	}
	now := s.opts.Now()
	hash := hashToken(c.Value)
	sess, err := db.LiveAdminSession(r.Context(), s.opts.Pool, hash, now.Add(-sessionIdle))
	if err != nil {
		if !errors.Is(err, db.ErrNotFound) {
			s.opts.Logger.Error("admin session lookup", "err", err)
		}
		return db.AdminSession{}, false
	}
	if now.Sub(sess.LastSeenAt) >= touchEvery {
		if err := db.TouchAdminSession(r.Context(), s.opts.Pool, hash, now); err != nil {
			s.opts.Logger.Warn("touch admin session", "err", err)
		} else {
			s.setCookie(w, r, c.Value, sessionIdle)
		}
	}
	return sess, true
}

func (s *Server) setCookie(w http.ResponseWriter, r *http.Request, value string, maxAge time.Duration) {
	c := &http.Cookie{
		Name:     sessionCookie,
		Value:    value,
		Path:     "/",
		HttpOnly: true,
		SameSite: http.SameSiteStrictMode,
		Secure:   r.TLS != nil || s.forwardedHTTPS(r),
		MaxAge:   int(maxAge.Seconds()),
	}
	if maxAge < 0 {
		c.MaxAge = -1
	}
	http.SetCookie(w, c)
}

// clientAddr is the address a request came from: its peer, or, when the
// peer is a trusted proxy (TRUSTED_PROXIES), the right-most address of
// X-Forwarded-For that is not itself a trusted proxy. Each proxy appends
// the address it saw, so everything left of that is the client's own to
// invent; a client cannot escape its login throttle by sending one.
func (s *Server) clientAddr(r *http.Request) string {
	peer, ok := peerAddr(r)
	if !ok {
		return r.RemoteAddr
	}
	if !s.trusted(peer) {
		return peer.String()
	}
	var hops []string
	for _, v := range r.Header.Values("X-Forwarded-For") {
		hops = append(hops, strings.Split(v, ",")...)
	}
	client := peer
	for i := len(hops) - 1; i >= 0 && s.trusted(client); i-- {
		hop, ok := parseHop(hops[i])
		if !ok {
			// A proxy passed on something that is not an address: the
			// last proxy known is as far as the chain can be followed.
			break
		}
		client = hop
	}
	return client.String()
}

// forwardedHTTPS says a trusted proxy received the request over HTTPS.
func (s *Server) forwardedHTTPS(r *http.Request) bool {
	peer, ok := peerAddr(r)
	if !ok || !s.trusted(peer) {
		return false
	}
	// With several proxies, the first one (the client's) says first.
	proto, _, _ := strings.Cut(r.Header.Get("X-Forwarded-Proto"), ",")
	return strings.EqualFold(strings.TrimSpace(proto), "https")
}

func (s *Server) trusted(a netip.Addr) bool {
	for _, p := range s.opts.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// peerAddr is the address of the other end of the request's connection.
func peerAddr(r *http.Request) (netip.Addr, bool) {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return netip.Addr{}, false
	}
	return ap.Addr().Unmap(), true
}

// parseHop reads one X-Forwarded-For entry: an address, with a port as
// some proxies write it.
func parseHop(v string) (netip.Addr, bool) {
	v = strings.TrimSpace(v)
	if a, err := netip.ParseAddr(v); err == nil {
		return a.Unmap(), true
	}
	if ap, err := netip.ParseAddrPort(v); err == nil {
		return ap.Addr().Unmap(), true
	}
	return netip.Addr{}, false
}

type loginRequest struct {
	Password string `json:"password"`
}

type csrfResponse struct {
	CSRFToken string `json:"csrf_token"`
}

// handleLogin checks the password and starts a session: POST /api/login.
func (s *Server) handleLogin(w http.ResponseWriter, r *http.Request) {
	addr, now := s.clientAddr(r), s.opts.Now()
	if wait := s.throttle.wait(addr, now); wait > 0 {
		tooMany(w, wait)
		return
	}
	var req loginRequest
	if !decodeJSON(w, r, &req, maxBody) {
		return
	}
	if req.Password == "" {
		writeFieldError(w, "password", "パスワードを入力してください")
		return
	}
	if s.opts.Pool == nil {
		writeError(w, http.StatusServiceUnavailable, "データベースがありません。")
		return
	}
	hash, err := db.Setting(r.Context(), s.opts.Pool, passwordSettingKey)
	if err != nil && !errors.Is(err, db.ErrNotFound) {
		s.opts.Logger.Error("read admin password", "err", err)
		writeError(w, http.StatusServiceUnavailable, "データベースに接続できません。")
		return
	}
	if wait := s.throttle.attempt(addr, now); wait > 0 {
		tooMany(w, wait)
		return
	}
	if !s.passwordMatches(r.Context(), hash, req.Password) {
		s.opts.Logger.Warn("admin login failed", "address", addr)
		writeError(w, http.StatusUnauthorized, "パスワードが違います。")
		return
	}
	s.throttle.reset(addr)
	token, csrf := rand.Text(), rand.Text()
	if err := db.InsertAdminSession(r.Context(), s.opts.Pool, db.AdminSession{
		TokenHash: hashToken(token), CSRFToken: csrf, Address: addr,
		UserAgent: truncate(r.UserAgent(), 200), CreatedAt: now,
	}); err != nil {
		s.opts.Logger.Error("store admin session", "err", err)
		writeError(w, http.StatusServiceUnavailable, "データベースに接続できません。")
		return
	}
	if _, err := db.PruneAdminSessions(r.Context(), s.opts.Pool, now.Add(-sessionIdle)); err != nil {
		s.opts.Logger.Warn("prune admin sessions", "err", err)
	}
	s.setCookie(w, r, token, sessionIdle)
	writeJSON(w, http.StatusOK, csrfResponse{CSRFToken: csrf})
}

// tooMany refuses a login attempt from an address over the limit.
func tooMany(w http.ResponseWriter, wait time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
	writeError(w, http.StatusTooManyRequests,
		fmt.Sprintf("ログインの失敗が続いたため、%d 分ほど待ってからお試しください。", int(math.Ceil(wait.Minutes()))))
}

// passwordMatches compares password with the stored hash (nil: none), in one
// of bcryptSlots; false too if ctx ends while it waits for one.
func (s *Server) passwordMatches(ctx context.Context, hash []byte, password string) bool {
	if hash == nil {
		return false
	}
	select {
	case s.bcrypt <- struct{}{}:
	case <-ctx.Done():
		return false
	}
	defer func() { <-s.bcrypt }()
	return bcrypt.CompareHashAndPassword(hash, []byte(password)) == nil
}

// handleMe tells the page its CSRF token: GET /api/me.
func (s *Server) handleMe(w http.ResponseWriter, r *http.Request) {
	sess, _ := currentSession(r.Context())
	writeJSON(w, http.StatusOK, csrfResponse{CSRFToken: sess.CSRFToken})
}

// handleLogout ends the session: POST /api/logout.
func (s *Server) handleLogout(w http.ResponseWriter, r *http.Request) {
	sess, _ := currentSession(r.Context())
	if err := db.DeleteAdminSession(r.Context(), s.opts.Pool, sess.TokenHash); err != nil {
		s.opts.Logger.Error("delete admin session", "err", err)
		writeError(w, http.StatusServiceUnavailable, "データベースに接続できません。")
		return
	}
	s.setCookie(w, r, "", -1)
	w.WriteHeader(http.StatusNoContent)
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}
