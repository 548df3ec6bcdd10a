package disaster

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Warning levels.
const (
	LevelAdvisory = 1 // 注意報
	LevelWarning  = 2 // 警報
	LevelSpecial  = 3 // 特別警報
)

// warningNames are JMA's warning codes (bosai/warning's "code").
var warningNames = map[string]string{
	"02": "暴風雪警報", "03": "大雨警報", "04": "洪水警報", "05": "暴風警報", "06": "大雪警報", "07": "波浪警報", "08": "高潮警報",
	"10": "大雨注意報", "12": "大雪注意報", "13": "風雪注意報", "14": "雷注意報", "15": "強風注意報", "16": "波浪注意報",
	"17": "融雪注意報", "18": "洪水注意報", "19": "高潮注意報", "20": "濃霧注意報", "21": "乾燥注意報", "22": "なだれ注意報",
	"23": "低温注意報", "24": "霜注意報", "25": "着氷注意報", "26": "着雪注意報", "27": "その他の注意報",
	"32": "暴風雪特別警報", "33": "大雨特別警報", "35": "暴風特別警報", "36": "大雪特別警報", "37": "波浪特別警報", "38": "高潮特別警報",
}

// WarningName is the name of a warning code and its level; ok is false
// for a code JMA does not use.
func WarningName(code string) (name string, level int, ok bool) {
	name, ok = warningNames[code]
	switch {
	case !ok:
		return "", 0, false
	case strings.HasSuffix(name, "特別警報"):
		return name, LevelSpecial, true
	case strings.HasSuffix(name, "警報"):
		return name, LevelWarning, true
	}
	return name, LevelAdvisory, true
}

// Warnings is an office's warnings as its latest report has them.
type Warnings struct {
	Office     string
	ReportedAt time.Time
	Headline   string
	// Active are the warnings in force, by code, with the areas (class10
	// codes) they are in force for, in the report's order.
	Active map[string][]string
}

// Codes are the codes in force, strongest level first, then by code.
// phenomenon is what a warning is about, whatever its level: 大雨 for
// 大雨注意報, 大雨警報 and 大雨特別警報; the advisories of 暴風雪 and 暴風
// are 風雪 and 強風.
func phenomenon(code string) string {
	name, _, _ := WarningName(code)
	for _, suffix := range []string{"特別警報", "警報", "注意報"} {
		if base, ok := strings.CutSuffix(name, suffix); ok {
			name = base
			break
		}
	}
	switch name {
	case "風雪":
		return "暴風雪"
	case "強風":
		return "暴風"
	}
	return name
}

// Successor is the code in force in w that replaced code — the same
// phenomenon at another level (大雨警報 → 大雨特別警報 or 大雨注意報) —
// or "" when code was lifted.
func (w Warnings) Successor(code string) string {
	p := phenomenon(code)
	for _, c := range w.Codes() {
		if c != code && p != "" && phenomenon(c) == p {
			return c
		}
	}
	return ""
}

func (w Warnings) Codes() []string {
	codes := make([]string, 0, len(w.Active))
	for c := range w.Active {
		codes = append(codes, c)
	}
	slices.SortFunc(codes, func(a, b string) int {
		_, la, _ := WarningName(a)
		_, lb, _ := WarningName(b)
		if la != lb {
			return lb - la
		}
		return strings.Compare(a, b)
	})
	return codes
}

// ParseWarnings reads bosai/warning/data/warning/{office}.json: its first
// area type (the class10 areas, 東京地方 …) and each area's warnings whose
// status is not 解除 (発表, 継続, 警報から注意報, …). Unknown codes are left
// out.
func ParseWarnings(office string, body []byte) (Warnings, error) {
	var raw struct {
		ReportDatetime string `json:"reportDatetime"`
		HeadlineText   string `json:"headlineText"`
		AreaTypes      []struct {
			Areas []struct {
				Code     string `json:"code"`
				Warnings []struct {
					Code   string `json:"code"`
					Status string `json:"status"`
				} `json:"warnings"`
			} `json:"areas"`
		} `json:"areaTypes"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return Warnings{}, fmt.Errorf("warnings of %s: %w", office, err)
	}
	t, err := time.Parse(time.RFC3339, raw.ReportDatetime)
	if err != nil {
		return Warnings{}, fmt.Errorf("warnings of %s: reportDatetime %q: %w", office, raw.ReportDatetime, err)
	}
	w := Warnings{Office: office, ReportedAt: t, Headline: strings.TrimSpace(raw.HeadlineText), Active: map[string][]string{}}
	if len(raw.AreaTypes) == 0 {
		return w, nil
	}
	for _, a := range raw.AreaTypes[0].Areas {
		for _, x := range a.Warnings {
			if _, _, ok := WarningName(x.Code); !ok || x.Status == "" || strings.Contains(x.Status, "解除") || strings.Contains(x.Status, "なし") {
				continue
			}
			if !slices.Contains(w.Active[x.Code], a.Code) {
				w.Active[x.Code] = append(w.Active[x.Code], a.Code)
			}
		}
	}
	return w, nil
}
