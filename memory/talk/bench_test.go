package talk_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/memory/talk"
)

// fullBuffer is a buffer at its bounds: DefaultChannels channels, each
// with as many messages as its bytes allow.
func fullBuffer() (*talk.Buffer, time.Time) {
	b := talk.New(talk.Options{})
	now := time.Now()
	text := strings.Repeat("話す", 40) // 240 bytes
	for c := range talk.DefaultChannels {
		for i := range talk.DefaultMessages {
			b.Add(fmt.Sprint(c), talk.Message{ID: fmt.Sprint(i), Author: "たろう", Text: text,
				At: now.Add(time.Duration(i-talk.DefaultMessages) * time.Second)})
		}
	}
	return b, now
}

// BenchmarkBufferAdd is the gateway's cost per member message.
func BenchmarkBufferAdd(b *testing.B) {
	buf, now := fullBuffer()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		buf.Add(fmt.Sprint(i%talk.DefaultChannels), talk.Message{ID: fmt.Sprint("n", i), Author: "はなこ", Text: "いいね", At: now.Add(time.Duration(i))})
	}
}

// BenchmarkBufferSince is a turn's read of its channel's talk.
func BenchmarkBufferSince(b *testing.B) {
	buf, now := fullBuffer()
	b.ReportAllocs()
	for b.Loop() {
		if len(buf.Since("7", now.Add(-talk.Window), now, "")) == 0 {
			b.Fatal("no talk")
		}
	}
}
