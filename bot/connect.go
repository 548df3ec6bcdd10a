package bot

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bwmarrin/discordgo"
)

// State is where the gateway connection stands.
type State string

// States of the gateway connection.
const (
	StateStarting   State = "starting"   // Start has not made its first attempt yet
	StateConnecting State = "connecting" // not connected; retrying with backoff
	StateWaiting    State = "waiting"    // not connected; waiting for the operator (retried every OperatorRetry or on RetryNow)
	StateConnected  State = "connected"
	StateStopped    State = "stopped"
	StateLeft       State = "left" // gateway closed by Leave; another process may hold it
)

// Status is the Discord adapter's health, for /readyz, the admin page and
// `yorozu doctor`.
type Status struct {
	State State
	// Gateway says why the gateway is not connected; nil when it is.
	Gateway *Diagnosis
	// Guilds is how many servers the bot is in, known once connected.
	Guilds int
	// Problems are all current diagnoses: the gateway's, then a bot in no
	// server, then slash commands Discord refused.
	Problems []Diagnosis
}

// GatewayErr is nil when the bot is connected and in a server; otherwise it
// says why not ("connecting: …", a diagnosis with its fix, or the invite URL).
func (s Status) GatewayErr() error {
	switch s.State {
	case StateStarting:
		return errors.New("connecting")
	case StateStopped:
		return errors.New("stopped")
	case StateLeft:
		return errors.New("left the gateway to another process")
	case StateConnecting:
		if s.Gateway != nil {
			return fmt.Errorf("connecting: %s", s.Gateway.Message)
		}
		return errors.New("connecting")
	case StateWaiting:
		if s.Gateway != nil {
			return errors.New(s.Gateway.String())
		}
	}
	for _, p := range s.Problems {
		if p.Code == DiagNoGuild {
			return fmt.Errorf("in no server: %s", p.Fix)
		}
	}
	return nil
}

// CommandsErr is nil when every slash command is registered; otherwise it
// reads "not registered: /name (reason)". The bot still answers mentions.
func (s Status) CommandsErr() error {
	for _, p := range s.Problems {
		if p.Code == DiagCommands {
			return errors.New(p.Message)
		}
	}
	return nil
}

// Status reports the connection's state and current problems.
func (b *Bot) Status() Status {
	b.mu.Lock()
	defer b.mu.Unlock()
	st := Status{State: b.state, Guilds: len(b.guilds)}
	if b.gatewayDiag != nil {
		d := *b.gatewayDiag
		st.Gateway = &d
		st.Problems = append(st.Problems, d)
	}
	if b.state == StateConnected && len(b.guilds) == 0 {
		st.Problems = append(st.Problems, noGuild(b.appID))
	}
	if b.commandsDiag != nil {
		st.Problems = append(st.Problems, *b.commandsDiag)
	}
	return st
}

// RetryNow makes a bot that is waiting for the operator (or backing off)
// try to connect and to register its commands at once; serve calls it on
// SIGHUP.
func (b *Bot) RetryNow() {
	for _, ch := range []chan struct{}{b.retryGateway, b.retryCommands} {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// Start connects to the gateway in the background and keeps it connected.
// It returns after the first attempt, connected or not: a failure is logged
// once with its diagnosis, shown by Status and retried (with backoff, or
// every OperatorRetry when only the operator can fix it). Slash commands
// added so far are registered after connecting; a refusal is retried too
// and the bot answers mentions meanwhile. The error is ctx's if it ends
// before the first attempt does.
func (b *Bot) Start(ctx context.Context) error {
	b.mu.Lock()
	if b.started {
		b.mu.Unlock()
		return errors.New("bot: started twice")
	}
	if b.stopping {
		b.mu.Unlock()
		return errors.New("bot: stopped")
	}
	b.started = true
	conn, cancel := context.WithCancel(b.loopCtx)
	b.leave = cancel
	b.mu.Unlock()
	first := make(chan struct{})
	b.loops.Add(2)
	go b.refreshModes(conn)
	go b.connectLoop(conn, first)
	select {
	case <-first:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("connect to discord: %w", ctx.Err())
	}
}

// connectLoop connects, waits for a disconnect and connects again until the
// bot stops. first is closed after the first attempt.
func (b *Bot) connectLoop(ctx context.Context, first chan struct{}) {
	defer b.loops.Done()
	var once bool
	signalFirst := func() {
		if !once {
			once = true
			close(first)
		}
	}
	defer signalFirst()

	backoff := b.opts.RetryMin
	var logged Diagnosis         // last diagnosis logged
	var loggedWait time.Duration // the longest backoff step logged for it
	steps := 0                   // backoff steps logged for it
	for ctx.Err() == nil {
		err := b.connectOnce(ctx)
		if err == nil {
			b.mu.Lock()
			b.state, b.gatewayDiag = StateConnected, nil
			guilds, appID := len(b.guilds), b.appID
			b.mu.Unlock()
			b.log.Info("discord connected", "user_id", b.UserID(), "guilds", guilds)
			if guilds == 0 {
				d := noGuild(appID)
				b.log.Warn(d.Message, "fix", d.Fix, "diagnosis", d.Code, "invite_url", InviteURL(appID))
			}
			logged, loggedWait, steps, backoff = Diagnosis{}, 0, 0, b.opts.RetryMin
			b.registerCommands(ctx)
			signalFirst()
			select {
			case <-ctx.Done():
				return
			case <-b.disconnected:
				b.log.Warn("discord gateway disconnected; reconnecting")
				continue
			}
		}
		if ctx.Err() != nil {
			return
		}
		d := diagnoseConnect(err, b.opts.APIBase)
		wait, state := backoff, StateConnecting
		if d.OperatorMustAct {
			wait, state = b.opts.OperatorRetry, StateWaiting
		}
		b.mu.Lock()
		b.state, b.gatewayDiag = state, &d
		b.mu.Unlock()
		// Each diagnosis is logged once; a failure that keeps happening is
		// logged again once per backoff step, until the backoff is at its
		// longest.
		switch {
		case d.Code != logged.Code || (d.Code != DiagGateway && d.Code != DiagUnreachable && d.Message != logged.Message):
			b.log.Error(d.Message, "fix", d.Fix, "diagnosis", d.Code, "retry_in", wait, "err", err)
			logged, loggedWait, steps = d, wait, 1
		case !d.OperatorMustAct && wait > loggedWait:
			steps++
			loggedWait = wait
			b.log.Warn("discord still unreachable", "diagnosis", d.Code, "attempt", steps, "retry_in", wait, "err", err)
		default:
			b.log.Debug("discord connect failed again", "diagnosis", d.Code, "err", err)
		}
		signalFirst()
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-b.retryGateway:
			b.log.Info("retrying the Discord connection now")
		case <-t.C:
		}
		t.Stop()
		if !d.OperatorMustAct {
			backoff = min(backoff*2, b.opts.RetryMax)
		}
	}
}

// Leave closes the gateway and stops reconnecting until Start is called
// again: for a process that no longer holds the gateway (Handover), so two
// never answer the same mentions. Replies already running finish over REST;
// turns waiting in channel queues are kept. Call it from the goroutine that
// calls Start.
func (b *Bot) Leave() {
	b.mu.Lock()
	if !b.started || b.stopping {
		b.mu.Unlock()
		return
	}
	b.started = false
	leave := b.leave
	b.mu.Unlock()
	leave()
	b.loops.Wait()
	b.ready.Store(false)
	if err := b.session.Close(); err != nil {
		b.log.Debug("discord close on leaving", "err", err)
	}
	b.mu.Lock()
	b.state, b.gatewayDiag = StateLeft, nil
	b.mu.Unlock()
}

// connectOnce opens the gateway and waits for READY (or RESUMED), within
// 30 s.
func (b *Bot) connectOnce(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	// Signals of an earlier connection are stale now.
	for _, ch := range []chan struct{}{b.disconnected, b.readySig} {
		select {
		case <-ch:
		default:
		}
	}
	opened := make(chan error, 1)
	go func() { opened <- b.session.Open() }()
	select {
	case err := <-opened:
		if errors.Is(err, discordgo.ErrWSAlreadyOpen) {
			err = nil
		}
		if err != nil {
			rebaseURLError(err, b.opts.APIBase)
			return fmt.Errorf("open discord gateway: %w", err)
		}
	case <-ctx.Done():
		go func() {
			if <-opened == nil {
				b.session.Close()
			}
		}()
		return fmt.Errorf("open discord gateway: %w", ctx.Err())
	}
	select {
	case <-b.readySig:
		return nil
	case <-b.disconnected:
		// Closed before READY (discordgo's heartbeat of the connection
		// before may close the new one, and Discord may end a session
		// that has just begun): the loop connects again.
		b.session.Close()
		return errors.New("discord gateway closed before READY")
	case <-ctx.Done():
		b.session.Close()
		return fmt.Errorf("wait for discord ready: %w", ctx.Err())
	}
}

func (b *Bot) onReady(_ *discordgo.Session, r *discordgo.Ready) {
	b.mu.Lock()
	if r.User != nil {
		b.botID = r.User.ID
	}
	if r.Application != nil && r.Application.ID != "" {
		b.appID = r.Application.ID
	} else {
		b.appID = b.botID
	}
	b.guilds = map[string]bool{}
	var guilds []string
	for _, g := range r.Guilds {
		if g != nil {
			b.guilds[g.ID] = true
			guilds = append(guilds, g.ID)
		}
	}
	b.mu.Unlock()
	b.loadModes(b.loopCtx)
	b.catchUp(b.loopCtx, false, guilds)
	b.ready.Store(true)
	signal(b.readySig)
}

func (b *Bot) onResumed(*discordgo.Session, *discordgo.Resumed) {
	b.catchUp(b.loopCtx, true, nil)
	b.ready.Store(true)
	signal(b.readySig)
}

func (b *Bot) onDisconnect(s *discordgo.Session, _ *discordgo.Disconnect) {
	b.ready.Store(false)
	// A connection can die quietly (and discordgo's own close waits a
	// second): what it last proved to work is its last heartbeat ACK.
	s.RLock()
	lastAck := s.LastHeartbeatAck
	s.RUnlock()
	b.mu.Lock()
	if b.state == StateConnected {
		b.state = StateConnecting
	}
	if b.dropped.IsZero() {
		b.dropped = b.now()
		if !lastAck.IsZero() && lastAck.Before(b.dropped) {
			b.dropped = lastAck
		}
	}
	b.mu.Unlock()
	signal(b.disconnected)
}

func (b *Bot) onGuildCreate(_ *discordgo.Session, g *discordgo.GuildCreate) {
	if g.Guild == nil {
		return
	}
	b.mu.Lock()
	joined := len(b.guilds) == 0
	if b.guilds == nil {
		b.guilds = map[string]bool{}
	}
	b.guilds[g.ID] = true
	b.mu.Unlock()
	if joined {
		b.log.Info("the bot joined a server", "guild_id", g.ID)
	}
	b.catchUpGuild(b.loopCtx, g.Guild)
}

func (b *Bot) onGuildDelete(_ *discordgo.Session, g *discordgo.GuildDelete) {
	if g.Guild == nil || g.Unavailable {
		return // an outage, not a removal
	}
	b.mu.Lock()
	delete(b.guilds, g.ID)
	left, appID := len(b.guilds) == 0, b.appID
	b.mu.Unlock()
	if left {
		d := noGuild(appID)
		b.log.Warn(d.Message, "fix", d.Fix, "diagnosis", d.Code, "invite_url", InviteURL(appID))
	}
}

// signal wakes whoever waits on ch (buffered, capacity 1) without blocking.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
