package db

import (
	"context"
	"encoding/json"
	"fmt"
)

// MessageImage is what is kept of one image sent with a message: never its
// bytes.
type MessageImage struct {
	Name        string `json:"name"`
	ContentType string `json:"content_type,omitempty"`
	Size        int    `json:"size"`             // bytes of the file, as received or reported
	Width       int    `json:"width,omitempty"`  // of the file; 0 when never read
	Height      int    `json:"height,omitempty"` // of the file; 0 when never read
	// SentWidth and SentHeight are the size the model saw it at; 0 when it
	// did not see it.
	SentWidth  int `json:"sent_width,omitempty"`
	SentHeight int `json:"sent_height,omitempty"`
	// Skipped says why the model did not see it ("no_vision", "too_large",
	// "too_many_pixels", "unsupported", "broken", "too_many",
	// "not_allowed", "fetch_failed"); empty when it did.
	Skipped string `json:"skipped,omitempty"`
	// Replied is set for an image of the message the user replied to.
	Replied bool `json:"replied,omitempty"`
}

// SetMessageImages keeps what is known of the images of message id.
func SetMessageImages(ctx context.Context, q Querier, id int64, images []MessageImage) error {
	var v any // none: SQL NULL, not the JSON null
	if len(images) > 0 {
		v = images
	}
	tag, err := q.Exec(ctx, `UPDATE messages SET images = $2 WHERE id = $1`, id, v)
	if err != nil {
		return fmt.Errorf("set images of message %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("set images of message %d: %w", id, ErrNotFound)
	}
	return nil
}

// MessageImages returns the images kept with each of the messages ids that
// has any, by message id.
func MessageImages(ctx context.Context, q Querier, ids []int64) (map[int64][]MessageImage, error) {
	out := map[int64][]MessageImage{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := q.Query(ctx, `SELECT id, images FROM messages WHERE id = ANY($1) AND images IS NOT NULL`, ids)
	if err != nil {
		return nil, fmt.Errorf("images of %d messages: %w", len(ids), err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var raw []byte
		if err := rows.Scan(&id, &raw); err != nil {
			return nil, fmt.Errorf("images of %d messages: %w", len(ids), err)
		}
		var imgs []MessageImage
		if err := json.Unmarshal(raw, &imgs); err != nil {
			return nil, fmt.Errorf("images of message %d: %w", id, err)
		}
		out[id] = imgs
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("images of %d messages: %w", len(ids), err)
	}
	return out, nil
}
