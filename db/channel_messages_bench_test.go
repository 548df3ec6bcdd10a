package db_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

// Shape of the channel log fixture: servers, channels (spread over the
// servers), members (each server its own) and days, ending an hour ago.
const (
	logServers  = 10
	logChannels = 1000
	logMembers  = 300 // per server
	logDays     = 89  // inside the default 90-day retention
)

// logWords are the words the fixture's messages are made of; "python" is
// not one of them.
const logWords = `'天気','ラーメン','猫','東京タワー','富士山','カレー','BBQ','集合場所','映画','ゲーム','温泉','電車','自転車','キャンプ','釣り','図書館',
'コーヒー','紅茶','パン','寿司','焼肉','餃子','味噌汁','お弁当','花火','祭り','海','山','川','公園','桜','紅葉','雪','雨','台風','地震','引っ越し','旅行',
'新幹線','飛行機','discord','go','rust','linux','windows','docker','postgres','ollama','gpu','cpu','ノートPC','スマホ','カメラ','ギター','ピアノ','漫画',
'アニメ','小説','将棋','囲碁','野球','サッカー','テニス','卓球','水泳','マラソン','筋トレ','ヨガ','散歩','料理','洗濯','掃除','買い物','家計簿','貯金',
'投資','仕事','会議','締め切り','資料','宿題','試験','英語','数学','歴史','地理','音楽','美術','体育','給食','犬','鳥','金魚','植物','野菜','果物',
'りんご','みかん','ぶどう','いちご','桃'`

// channelLogOf returns a pool on a copy of a channel log of n messages
// over logDays, as busy servers leave it: message g is in channel
// g%logChannels of server g%logServers, by one of that server's members,
// with snowflake ids from its time. It is built with one INSERT … SELECT
// generate_series (the terms index built after it) once per size and
// migration set: a minute per million rows, mostly the terms.
func channelLogOf(b *testing.B, n int) *pgxpool.Pool {
	b.Helper()
	return dbtest.NewFixture(b, "chanlog"+strconv.Itoa(n), func(ctx context.Context, pool *pgxpool.Pool) error {
		for _, q := range []string{
			`DROP INDEX channel_messages_terms_idx`,
			fmt.Sprintf(`
INSERT INTO channel_messages (message_id, space, guild_id, channel_id, author_id, author_name, author_kind, created_at, content)
SELECT ((extract(epoch FROM x.t) * 1000)::bigint - 1420070400000) << 22 | (g & 4194303),
       'guild:' || (300000000000000001 + g %% %[2]d), (300000000000000001 + g %% %[2]d)::text,
       (200000000000000001 + g %% %[3]d)::text,
       (400000000000000001 + (g %% %[2]d) * 100000 + (g / %[3]d) %% %[4]d)::text,
       'member' || ((g %% %[2]d) * 100000 + (g / %[3]d) %% %[4]d), 'member', x.t,
       w[1 + g %% cardinality(w)] || 'って' || w[1 + (g / 97) %% cardinality(w)] || 'でも使えますか？' ||
       w[1 + (g / 9973) %% cardinality(w)] || 'のやり方を教えてください。'
FROM generate_series(1, %[1]d) g,
     LATERAL (SELECT now() - interval '1 hour' - interval '%[5]d days' * (1 - g::float8 / %[1]d) AS t) x,
     (SELECT ARRAY[%[6]s] AS w) v`, n, logServers, logChannels, logMembers, logDays, logWords),
			`CREATE INDEX channel_messages_terms_idx ON channel_messages USING gin (terms)`,
			`VACUUM (ANALYZE) channel_messages`,
		} {
			if _, err := pool.Exec(ctx, q); err != nil {
				return fmt.Errorf("channel log of %d: %w", n, err)
			}
		}
		return nil
	})
}

// BenchmarkChannelLog searches channel logs of a million and (with
// YOROZU_BENCH_10M=1: the fixture takes half an hour to build once) ten
// million messages for common, rare and absent words, narrowed by
// channel, member and time, and a channel's newest messages as /summary
// reads them; it reports each search's p50 and p95 (target: p95 under
// 100 ms). Then it deletes the oldest tenth the way the retention job
// does, 5,000 rows a DELETE, and reports the batches' p50 and longest (how
// long any one statement holds its locks).
func BenchmarkChannelLog(b *testing.B) {
	sizes := []int{1_000_000}
	if os.Getenv("YOROZU_BENCH_10M") == "1" {
		sizes = append(sizes, 10_000_000)
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("rows=%dM", n/1_000_000), func(b *testing.B) { benchChannelLog(b, channelLogOf(b, n)) })
	}
}

func benchChannelLog(b *testing.B, pool *pgxpool.Pool) {
	ctx := context.Background()
	const space, channel = "guild:300000000000000001", "200000000000000001"
	member := strconv.Itoa(400000000000000001 + 7) // a member of that server
	var total int64
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM channel_messages`).Scan(&total); err != nil {
		b.Fatal(err)
	}
	b.Logf("%d logged messages", total)
	for _, bc := range []struct {
		name string
		q    db.ChannelLogQuery
	}{
		{"common", db.ChannelLogQuery{Query: "天気"}},
		{"two_words", db.ChannelLogQuery{Query: "ラーメン 猫"}},
		{"absent_ascii", db.ChannelLogQuery{Query: "python"}},
		{"ascii_prefix", db.ChannelLogQuery{Query: "dock"}},
		{"rare_phrase", db.ChannelLogQuery{Query: "東京タワーって富士山"}},
		{"channel", db.ChannelLogQuery{Query: "天気", ChannelID: channel}},
		{"channel_absent", db.ChannelLogQuery{Query: "python", ChannelID: channel}},
		{"member", db.ChannelLogQuery{Query: "天気", Author: member}},
		{"member_by_name", db.ChannelLogQuery{Query: "天気", Author: "member7"}},
		{"member_absent", db.ChannelLogQuery{Query: "天気", Author: "nobody"}},
		{"last_30d", db.ChannelLogQuery{Query: "天気", Since: time.Now().Add(-30 * 24 * time.Hour)}},
		{"channel_today", db.ChannelLogQuery{ChannelID: channel, Since: time.Now().Add(-24 * time.Hour), Limit: 501}},
		{"channel_newest", db.ChannelLogQuery{ChannelID: channel, Limit: 501}},
	} {
		q := bc.q
		q.Space = space
		if q.Limit == 0 {
			q.Limit = 10
		}
		b.Run(bc.name, func(b *testing.B) {
			var ds []time.Duration
			var n int
			for b.Loop() {
				start := time.Now()
				hits, err := db.SearchChannelLog(ctx, pool, q)
				if err != nil {
					b.Fatal(err)
				}
				ds = append(ds, time.Since(start))
				n = len(hits)
			}
			reportQuantiles(b, ds)
			b.ReportMetric(float64(n), "hits")
		})
	}
	b.Run("retention", func(b *testing.B) {
		var oldest time.Time
		if err := pool.QueryRow(ctx, `SELECT min(created_at) FROM channel_messages`).Scan(&oldest); err != nil {
			b.Fatal(err)
		}
		cutoff := oldest.Add(time.Since(oldest) / 10)
		for b.Loop() {
			var ds []time.Duration
			var deleted int64
			for {
				start := time.Now()
				n, err := db.DeleteChannelMessagesBefore(ctx, pool, cutoff, 5000)
				if err != nil {
					b.Fatal(err)
				}
				ds = append(ds, time.Since(start))
				deleted += n
				if n < 5000 {
					break
				}
			}
			reportQuantiles(b, ds)
			b.ReportMetric(float64(deleted), "deleted")
			b.ReportMetric(float64(len(ds)), "batches")
			cutoff = cutoff.Add(time.Since(oldest) / 100) // the next run has rows to delete
		}
	})
}

func reportQuantiles(b *testing.B, ds []time.Duration) {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(ds[len(ds)*95/100].Microseconds())/1000, "p95-ms")
	b.ReportMetric(float64(ds[len(ds)-1].Microseconds())/1000, "max-ms")
}
