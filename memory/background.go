package memory

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
)

// Background work (tags, summaries, knowledge entries) never delays a reply:
// it is queued to a few workers; when the queue is full the job is dropped
// (a missed summary is retried on the next turn, a missed tag is only a tag).
const (
	bgWorkers = 2
	bgQueue   = 256
)

type background struct {
	once   sync.Once
	mu     sync.Mutex
	closed bool
	jobs   chan func(context.Context)
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	n      int
	size   int
	log    *slog.Logger
}

func (b *background) init(workers, size int, log *slog.Logger) {
	b.n, b.size, b.log = workers, size, log
}

func (b *background) start() {
	b.jobs = make(chan func(context.Context), b.size)
	b.ctx, b.cancel = context.WithCancel(context.Background())
	for range b.n {
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			for {
				select {
				case <-b.ctx.Done():
					return
				case job := <-b.jobs:
					b.do(job)
				}
			}
		}()
	}
}

// do runs one job; a panic in it (a bad message in kagome, a word-pool
// update) is logged and the worker goes on with the next job, so one bad
// turn never takes the process down.
func (b *background) do(job func(context.Context)) {
	defer func() {
		if p := recover(); p != nil {
			b.log.Error("memory background job panicked; skipped", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		}
	}()
	job(b.ctx)
}

// run queues job; false when the queue is full or closed. Workers
// start on first use, so a Memory that never does background work has no
// goroutines.
func (b *background) run(job func(context.Context)) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return false
	}
	b.once.Do(b.start)
	select {
	case b.jobs <- job:
		return true
	default:
		return false
	}
}

func (b *background) close() {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.closed = true
	started := b.jobs != nil
	b.mu.Unlock()
	if started {
		b.cancel()
		b.wg.Wait()
	}
}
