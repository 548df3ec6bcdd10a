package chanlog

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/yorozu-bot/yorozu/db"
)

// Options configure a Log. Zero values take the defaults given.
type Options struct {
	// QueueSize is how many entries may wait for the writer; one more is
	// dropped (and counted). Default 10,000.
	QueueSize int
	// BatchSize is the most entries written at once. Default 500.
	BatchSize int
	// FlushEvery is the longest an entry waits before it is written.
	// Default 100 ms.
	FlushEvery time.Duration
	// Refresh is how often which channels are logged is read again, so a
	// change made by another process applies here (Set applies one made
	// here at once). Default 2 min: each read is a transaction of an idle
	// process.
	Refresh time.Duration
	// Yield is the longest a batch waits for the rest of the process to
	// leave the database alone (no connection taken from the pool for a
	// few milliseconds) before it is written anyway, so that the log's
	// writes fall between turns' queries rather than beside them. Default
	// 50 ms; negative: write at once.
	Yield  time.Duration
	Logger *slog.Logger // default slog.Default()
}

// Log is the channel log's ingester and the cache of which channels are
// logged. Its methods are safe for concurrent use.
type Log struct {
	pool     *pgxpool.Pool
	opts     Options
	log      *slog.Logger
	queue    chan entry
	settings atomic.Pointer[[]db.ChannelLogSetting]
	dropped  atomic.Uint64
	written  atomic.Uint64

	startOnce, stopOnce sync.Once
	cancel              context.CancelFunc
	done                chan struct{}
}

// entry is one change waiting for the writer; exactly one field is set.
type entry struct {
	add     *db.ChannelMessage
	edit    *db.ChannelMessageEdit
	del     []int64
	channel *[2]string // guild, channel: the channel's whole log
	flush   chan struct{}
}

// New returns a Log writing to pool; Start starts its writer.
func New(pool *pgxpool.Pool, opts Options) *Log {
	if opts.QueueSize <= 0 {
		opts.QueueSize = 10_000
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = 500
	}
	if opts.FlushEvery <= 0 {
		opts.FlushEvery = 100 * time.Millisecond
	}
	if opts.Refresh <= 0 {
		opts.Refresh = 2 * time.Minute
	}
	if opts.Yield == 0 {
		opts.Yield = 50 * time.Millisecond
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	l := &Log{pool: pool, opts: opts, log: opts.Logger.With(slog.String("component", "channel_log")),
		queue: make(chan entry, opts.QueueSize), done: make(chan struct{})}
	l.settings.Store(&[]db.ChannelLogSetting{})
	return l
}

// Start reads which channels are logged and starts the writer; it returns
// once the settings are read (an error then is returned, and the writer
// still starts, reading them again every Refresh).
func (l *Log) Start(ctx context.Context) error {
	var err error
	l.startOnce.Do(func() {
		err = l.Reload(ctx)
		wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		l.cancel = cancel
		go l.run(wctx)
	})
	return err
}

// Stop writes what is queued and stops the writer; it is idempotent.
func (l *Log) Stop() {
	l.stopOnce.Do(func() {
		if l.cancel == nil {
			close(l.done)
			return
		}
		l.cancel()
		<-l.done
	})
}

// Reload reads which channels are logged.
func (l *Log) Reload(ctx context.Context) error {
	ss, err := db.ChannelLogSettings(ctx, l.pool)
	if err != nil {
		return err
	}
	l.settings.Store(&ss)
	return nil
}

// Logged reports whether channelID of guildID (a thread when parentID is
// set) is logged. It reads memory only.
func (l *Log) Logged(guildID, channelID, parentID string) bool {
	return guildID != "" && db.ChannelLogOn(*l.settings.Load(), guildID, channelID, parentID)
}

// Watched reports whether anything of guildID is or was logged, so its
// edits and deletions may concern the log. It reads memory only.
func (l *Log) Watched(guildID string) bool {
	for _, s := range *l.settings.Load() {
		if s.GuildID == guildID {
			return true
		}
	}
	return false
}

// Set turns the log of channelID in guildID on or off (a thread when
// parentID is set; by: who) and applies it here at once.
func (l *Log) Set(ctx context.Context, guildID, channelID, parentID string, on bool, by string) error {
	if err := db.SetChannelLog(ctx, l.pool, guildID, channelID, parentID, &on, by); err != nil {
		return err
	}
	return l.Reload(ctx)
}

// Add queues m to be stored; it never waits (a full queue drops it).
func (l *Log) Add(m db.ChannelMessage) { l.put(entry{add: &m}) }

// Edit queues a logged message's new text; it never waits.
func (l *Log) Edit(e db.ChannelMessageEdit) { l.put(entry{edit: &e}) }

// Delete queues the deletion of messages; it never waits.
func (l *Log) Delete(ids ...int64) {
	if len(ids) > 0 {
		l.put(entry{del: ids})
	}
}

// DropChannel queues the deletion of channelID's whole log (and its
// threads'): the channel was deleted on Discord. It never waits.
func (l *Log) DropChannel(guildID, channelID string) {
	l.put(entry{channel: &[2]string{guildID, channelID}})
}

// Dropped is how many entries were dropped because the queue was full.
func (l *Log) Dropped() uint64 { return l.dropped.Load() }

// Written is how many new messages were stored.
func (l *Log) Written() uint64 { return l.written.Load() }

func (l *Log) put(e entry) {
	select {
	case l.queue <- e:
	default:
		if n := l.dropped.Add(1); n&(n-1) == 0 { // the 1st, 2nd, 4th, … drop: logged, not flooding
			l.log.Warn("channel log queue full: message dropped", "dropped", n, "queue_size", l.opts.QueueSize)
		}
	}
}

// Flush waits until everything queued before it is written, or ctx ends.
func (l *Log) Flush(ctx context.Context) error {
	c := make(chan struct{})
	select {
	case l.queue <- entry{flush: c}:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-c:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// run is the writer: it gathers entries into batches and writes them.
func (l *Log) run(ctx context.Context) {
	defer close(l.done)
	tick := time.NewTicker(l.opts.FlushEvery)
	defer tick.Stop()
	refresh := time.NewTicker(l.opts.Refresh)
	defer refresh.Stop()
	batch := make([]entry, 0, l.opts.BatchSize)
	for {
		select {
		case <-ctx.Done():
			for { // what is queued is written before Stop returns
				select {
				case e := <-l.queue:
					batch = append(batch, e)
					if len(batch) >= l.opts.BatchSize {
						batch = l.write(batch, false)
					}
					continue
				default:
				}
				break
			}
			l.write(batch, false)
			return
		case e := <-l.queue:
			batch = append(batch, e)
			if len(batch) >= l.opts.BatchSize || e.flush != nil {
				// Someone waits on a flush (/forget me): no yielding.
				batch = l.write(batch, e.flush == nil)
			}
		case <-tick.C:
			batch = l.write(batch, true)
		case <-refresh.C:
			rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			if err := l.Reload(rctx); err != nil {
				l.log.Warn("channel log settings not read", "err", err)
			}
			cancel()
		}
	}
}

// writeTimeout bounds one batch's statements.
const writeTimeout = 30 * time.Second

// write stores batch in order, one statement per run of entries of the
// same kind, and returns batch emptied; first, when polite, it yields to
// the rest of the process (not while stopping, nor for a flush someone
// waits on). A failed statement is logged and its entries lost: the log is
// a record, not a conversation, and holding them would hold up the
// gateway's next ones.
func (l *Log) write(batch []entry, polite bool) []entry {
	if len(batch) == 0 {
		return batch
	}
	if polite {
		l.yield()
	}
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	for i := 0; i < len(batch); {
		j := i + 1
		for j < len(batch) && sameKind(batch[i], batch[j]) {
			j++
		}
		l.apply(ctx, batch[i:j])
		i = j
	}
	clear(batch)
	return batch[:0]
}

// quietFor is how long nothing else must have taken a connection from the
// pool for the database to count as left alone.
const quietFor = 3 * time.Millisecond

// yield waits, at most Options.Yield, until nothing else has taken a
// connection from the pool for quietFor. A turn's queries come in quick
// succession; the log's batch, which can keep a core busy for tens of
// milliseconds, then waits for them to be over instead of competing with
// them. Under constant load it waits its bound and writes anyway.
func (l *Log) yield() {
	if l.opts.Yield < 0 {
		return
	}
	deadline := time.Now().Add(l.opts.Yield)
	last := l.pool.Stat().AcquireCount()
	for time.Now().Before(deadline) {
		time.Sleep(quietFor)
		n := l.pool.Stat().AcquireCount()
		if n == last {
			return
		}
		last = n
	}
}

func sameKind(a, b entry) bool {
	return (a.add != nil) == (b.add != nil) && (a.edit != nil) == (b.edit != nil) && (a.del != nil) == (b.del != nil) &&
		a.channel == nil && b.channel == nil && a.flush == nil && b.flush == nil
}

func (l *Log) apply(ctx context.Context, run []entry) {
	e := run[0]
	var err error
	switch {
	case e.flush != nil:
		for _, f := range run {
			close(f.flush)
		}
	case e.add != nil:
		ms := make([]db.ChannelMessage, len(run))
		for i, r := range run {
			ms[i] = *r.add
		}
		var n int64
		n, err = db.InsertChannelMessages(ctx, l.pool, ms)
		l.written.Add(uint64(n))
	case e.edit != nil:
		es := make([]db.ChannelMessageEdit, len(run))
		for i, r := range run {
			es[i] = *r.edit
		}
		err = db.EditChannelMessages(ctx, l.pool, es)
	case e.del != nil:
		var ids []int64
		for _, r := range run {
			ids = append(ids, r.del...)
		}
		_, err = db.DeleteChannelMessages(ctx, l.pool, ids)
	case e.channel != nil:
		var n int64
		n, err = db.DeleteChannelLog(ctx, l.pool, e.channel[0], e.channel[1])
		if err == nil && n > 0 {
			l.log.Info("deleted channel's log removed", "guild_id", e.channel[0], "channel_id", e.channel[1], "messages", n)
		}
	}
	if err != nil {
		l.log.Error("channel log not written", "entries", len(run), "err", err)
	}
}

// Forget deletes every logged message authorID wrote in space (/forget
// me) and returns how many, after what is queued is written, so a message
// sent just before is forgotten too.
func (l *Log) Forget(ctx context.Context, space, authorID string) (int64, error) {
	fctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := l.Flush(fctx); err != nil {
		l.log.Warn("channel log not flushed before /forget me", "err", err)
	}
	return db.ForgetChannelMessagesOf(ctx, l.pool, space, authorID)
}
