package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// ErrPresetLabelTaken: another preset already has that label.
var ErrPresetLabelTaken = errors.New("a model preset with that label exists")

// ModelPreset is a row of model_presets: one choice of the model selector.
type ModelPreset struct {
	ID        int64     `db:"id" json:"id"`
	Label     string    `db:"label" json:"label"`
	Model     string    `db:"model" json:"model"` // the Ollama model name, e.g. qwen3:4b
	CreatedAt time.Time `db:"created_at" json:"created_at"`
}

const modelPresetColumns = "id, label, model, created_at"

// ModelPresets returns every preset, oldest first.
func ModelPresets(ctx context.Context, q Querier) ([]ModelPreset, error) {
	rows, err := q.Query(ctx, "SELECT "+modelPresetColumns+" FROM model_presets ORDER BY id")
	if err != nil {
		return nil, fmt.Errorf("model presets: %w", err)
	}
	ps, err := pgx.CollectRows(rows, pgx.RowToStructByName[ModelPreset])
	if err != nil {
		return nil, fmt.Errorf("model presets: %w", err)
	}
	return ps, nil
}

// InsertModelPreset adds a preset; a label in use is ErrPresetLabelTaken.
func InsertModelPreset(ctx context.Context, q Querier, label, model string) (ModelPreset, error) {
	rows, err := q.Query(ctx, "INSERT INTO model_presets (label, model) VALUES ($1, $2) RETURNING "+modelPresetColumns, label, model)
	if err != nil {
		return ModelPreset{}, fmt.Errorf("insert model preset %q: %w", label, err)
	}
	p, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[ModelPreset])
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "23505" {
			err = ErrPresetLabelTaken
		}
		return ModelPreset{}, fmt.Errorf("insert model preset %q: %w", label, interpretError(err))
	}
	return p, nil
}

// DeleteModelPreset removes a preset, or reports ErrNotFound.
func DeleteModelPreset(ctx context.Context, q Querier, id int64) error {
	tag, err := q.Exec(ctx, "DELETE FROM model_presets WHERE id = $1", id)
	if err != nil {
		return fmt.Errorf("delete model preset %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("delete model preset %d: %w", id, ErrNotFound)
	}
	return nil
}
