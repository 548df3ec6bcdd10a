// Package knowledge holds read_knowledge, the tool that returns the body and
// sources of a knowledge entry listed in the context's knowledge headings.
package knowledge

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/memory"
	"github.com/yorozu-bot/yorozu/tools"
)

// Name is the tool's name.
const Name = "read_knowledge"

// Store finds knowledge entries; *memory.Memory satisfies it.
type Store interface {
	Knowledge(ctx context.Context, space memory.Space, id int64) (db.KnowledgeEntry, []db.KnowledgeSource, error)
}

var _ Store = (*memory.Memory)(nil)

type args struct {
	ID int64 `json:"id" jsonschema_description:"the entry's id: the number in [ ] in the knowledge headings"`
}

// Tool returns read_knowledge over s; dates are shown in loc. It reaches only
// the entries of the caller's space (tools.Caller.Space).
func Tool(s Store, loc *time.Location) tools.Tool {
	if loc == nil {
		loc = time.Local
	}
	return tools.MustNew(Name,
		"Read a knowledge entry (what an earlier web search found): its text and its sources.",
		func(ctx context.Context, a args) (string, error) {
			c, _ := tools.CallerFrom(ctx)
			e, srcs, err := s.Knowledge(ctx, memory.Space(c.Space), a.ID)
			if errors.Is(err, db.ErrNotFound) {
				return "", fmt.Errorf("no knowledge entry %d: use an id from the knowledge headings, or search the web", a.ID)
			}
			if err != nil {
				return "", err
			}
			var b strings.Builder
			fmt.Fprintf(&b, "# %s\n(knowledge %d, from the search %q on %s)\n\n%s\n", e.Title, e.ID, e.Query,
				e.CreatedAt.In(loc).Format("2006-01-02"), e.Body)
			if len(srcs) > 0 {
				b.WriteString("\nSources:\n")
				for i, src := range srcs {
					fmt.Fprintf(&b, "%d. %s %s\n", i+1, src.Title, src.URL)
				}
			}
			return strings.TrimSpace(b.String()), nil
		})
}
