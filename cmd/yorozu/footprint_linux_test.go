package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"golang.org/x/sys/unix"

	"github.com/yorozu-bot/yorozu/internal/logtest"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// footprintTurns is how many turns BenchmarkFootprint drives between its
// two late readings: growth per footprintTurns should be about zero.
const footprintTurns = 1000

// BenchmarkFootprint measures yorozu's resident memory the way an operator
// sees it: the real binary, built into a temporary folder, runs as its own
// process against the fake Discord and Ollama of this test process and a
// real Postgres, and its /proc/<pid>/status is read
//
//   - when it is ready, before anything has loaded the kagome dictionary
//     (MiB-start),
//   - after the first turn is kept, tags and all, so the dictionary is in
//     (MiB-dict),
//   - after 1,000 and 2,000 tool-less turns sent back to back, their
//     housekeeping finished (MiB-1000, MiB-2000),
//
// and MiB-growth is MiB-2000 − MiB-1000. heap-MiB-* are the Go heap in use
// (HeapInuse, from /metrics) at the same moments. Each iteration is one
// whole run; run it as
//
//	go test -run '^$' -bench Footprint -benchtime 1x -count 5 -timeout 30m ./cmd/yorozu/
//
// and take the medians.
func BenchmarkFootprint(b *testing.B) {
	bin := buildYorozu(b)
	for range b.N {
		r := footprintRun(b, bin)
		for _, m := range r {
			b.ReportMetric(m.value, m.unit)
		}
	}
}

type footprintMetric struct {
	unit  string
	value float64
}

// footprintRun starts bin against fresh fakes and database, drives
// 2×footprintTurns turns, and returns the readings.
func footprintRun(b *testing.B, bin string) []footprintMetric {
	h := newHarness(b, map[string]string{"USER_RATE_LIMIT": "0", "METRICS_PUBLIC": "true"})
	child := h.startBinary(b, bin)
	h.openPool(b)
	h.handle(func(req api.ChatRequest) ollamatest.Reply {
		return ollamatest.Text(footprintReply(req.Messages[len(req.Messages)-1].Content))
	})

	var out []footprintMetric
	read := func(label string) (rss float64) {
		st := procStatus(b, child.Process.Pid)
		heap := h.metricValue(b, "go_memstats_heap_inuse_bytes")
		out = append(out,
			footprintMetric{"MiB-" + label, st["VmRSS"]},
			footprintMetric{"anon-MiB-" + label, st["RssAnon"]},
			footprintMetric{"heap-MiB-" + label, heap / (1 << 20)})
		return st["VmRSS"]
	}

	read("start")
	turn := 0
	drive := func(n int) {
		for range n {
			text := footprintText(turn)
			h.mention(aliceID, text)
			h.waitReply(b, turn+1, equals(footprintReply(text)))
			turn++
		}
		h.settleTest(b, 2*turn)
	}
	drive(1)
	read("dict")
	drive(footprintTurns - 1)
	at1k := read(strconv.Itoa(footprintTurns))
	drive(footprintTurns)
	at2k := read(strconv.Itoa(2 * footprintTurns))
	return append(out, footprintMetric{"MiB-growth", at2k - at1k})
}

// footprintNouns make the turns' topics, so tags and the word pool see a
// vocabulary that keeps changing, as in a real channel.
var footprintNouns = strings.Fields(`ポケモン 富士山 カレー 将棋 北海道 ラーメン 自転車 図書館 映画 温泉
	野球 サッカー 京都 沖縄 紅茶 珈琲 寿司 天ぷら 宇宙 恐竜 猫 犬 桜 紅葉 花火 祭り 電車 飛行機
	ギター ピアノ 小説 漫画 アニメ 料理 写真 登山 釣り 水族館 動物園 博物館 美術館 公園 海 川 山
	星座 月 太陽 雪 台風`)

func footprintText(i int) string {
	n := len(footprintNouns)
	a, c := footprintNouns[i%n], footprintNouns[(i/n+i*7)%n]
	return fmt.Sprintf("%sと%sについて教えて（%d回目）", a, c, i+1)
}

// footprintReply is the fake model's answer: a few hundred characters
// about the question's words.
func footprintReply(question string) string {
	topic, _, _ := strings.Cut(question, "について")
	return strings.Repeat(topic+"についてはいろいろな話があります。まずは身近なところから始めてみましょう。", 4)
}

// buildYorozu builds this package's binary into a temporary folder and
// drops its pages from the page cache, so the first start reads it from disk
// as a binary started after boot is. How the file came into the page cache
// changes what its mapped pages weigh: the same binary measured 36 MB
// resident as the linker wrote it, 39 MB rewritten with one write, and
// 33.5 MB read from disk.
func buildYorozu(b testing.TB) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "yorozu")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	f, err := os.Open(bin)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil { // only clean pages can be dropped
		b.Fatal(err)
	}
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		b.Fatal(err)
	}
	return bin
}

// startBinary runs bin with the harness's environment, waits until it is
// ready, and stops it (SIGTERM) when the benchmark ends.
func (h *harness) startBinary(t testing.TB, bin string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin)
	for k, v := range h.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	stdout := &logtest.Buffer{}
	cmd.Stdout, cmd.Stderr = stdout, h.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("yorozu exited: %v\nstderr:\n%s", err, h.stderr.String())
			}
		case <-time.After(time.Minute):
			_ = cmd.Process.Kill()
			t.Errorf("yorozu did not stop within a minute of SIGTERM")
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h.httpURL = "http://" + waitLog(t, ctx, stdout, regexp.MustCompile(`yorozu ready: http://(\S+)`))
	return cmd
}

// procStatus reads the memory lines (VmRSS, RssAnon, RssFile, …) of
// /proc/<pid>/status, in MiB.
func procStatus(t testing.TB, pid int) map[string]float64 {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		v, isKB := strings.CutSuffix(strings.TrimSpace(v), " kB")
		if !ok || !isKB {
			continue
		}
		kb, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatalf("%s: %v", sc.Text(), err)
		}
		out[k] = kb / 1024
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// metricValue reads one unlabelled sample from yorozu's /metrics.
func (h *harness) metricValue(t testing.TB, name string) float64 {
	t.Helper()
	resp, err := http.Get(h.httpURL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(body)) {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			return f
		}
	}
	t.Fatalf("no %s in /metrics (status %d)", name, resp.StatusCode)
	return 0
}
