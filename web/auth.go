package web

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/yorozu-bot/yorozu/db"
)

const (
	// passwordSettingKey is where the admin password's bcrypt hash is kept
	// in app_settings.
	passwordSettingKey = "admin_password_bcrypt"
	// MinPasswordLength is the shortest password set-password accepts.
	MinPasswordLength = 8
	// sessionIdle ends a login that made no request for this long.
	sessionIdle = 30 * 24 * time.Hour
	// sessionCookie names the login cookie.
	sessionCookie = "yorozu_session"
	// touchEvery bounds how often a session's last_seen_at is written.
	touchEvery = time.Minute
)

// EnsurePassword makes the stored admin password hash match the
// configuration: with ADMIN_PASSWORD (envPassword) set, its hash is stored
// when it is not already; without it, an existing hash is kept, and when
// there is none a random password is generated, its hash stored and the
// password returned so the caller prints it once. Several processes starting
// at once agree on one password; only the one that stored it gets it back.
func EnsurePassword(ctx context.Context, q db.Querier, envPassword string) (generated string, err error) {
	stored, err := db.Setting(ctx, q, passwordSettingKey)
	if err != nil && !errors.Is(err, db.ErrNotFound) {
		return "", err
	}
	if envPassword != "" {
		if stored != nil && bcrypt.CompareHashAndPassword(stored, []byte(envPassword)) == nil {
			return "", nil
		}
		hash, err := hashPassword(envPassword)
		if err != nil {
			return "", fmt.Errorf("ADMIN_PASSWORD: %w", err)
		}
		return "", db.SetSetting(ctx, q, passwordSettingKey, hash)
	}
	if stored != nil {
		return "", nil
	}
	pw := rand.Text()
	hash, err := hashPassword(pw)
	if err != nil {
		return "", err
	}
	got, err := db.EnsureSetting(ctx, q, passwordSettingKey, hash)
	if err != nil {
		return "", err
	}
	if string(got) != string(hash) {
		return "", nil // another process generated one first
	}
	return pw, nil
}

// SetPassword replaces the admin password and ends every login.
func SetPassword(ctx context.Context, q db.Querier, password string) error {
	password = strings.TrimRight(password, "\r\n")
	if n := len([]rune(password)); n < MinPasswordLength {
		return fmt.Errorf("set admin password: at least %d characters are needed, got %d", MinPasswordLength, n)
	}
	hash, err := hashPassword(password)
	if err != nil {
		return err
	}
	if err := db.SetSetting(ctx, q, passwordSettingKey, hash); err != nil {
		return err
	}
	_, err = db.DeleteAdminSessions(ctx, q)
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
		Secure:   r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https"),
		MaxAge:   int(maxAge.Seconds()),
	}
	if maxAge < 0 {
		c.MaxAge = -1
	}
	http.SetCookie(w, c)
}

// clientAddr is the address a request came from. Behind a reverse proxy on
// the same host (a loopback peer), the address the proxy appended to
// X-Forwarded-For is used, so one client's failures do not lock out all.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		if xff := r.Header.Get("X-Forwarded-For"); xff != "" {
			parts := strings.Split(xff, ",")
			if last := strings.TrimSpace(parts[len(parts)-1]); net.ParseIP(last) != nil {
				return last
			}
		}
	}
	return host
}

type loginRequest struct {
	Password string `json:"password"`
}

type csrfResponse struct {
	CSRFToken string `json:"csrf_token"`
}

// handleLogin checks the password and starts a session: POST /api/login.
func (s *Server) handleLogin(w http.ResponseWriter, r *http.Request) {
	addr, now := clientAddr(r), s.opts.Now()
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
