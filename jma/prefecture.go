package jma

import "fmt"

// Prefectures are Japan's prefectures in JMA's order: the name of code
// "01" is Prefectures[0], of "47" Prefectures[46]. JMA's earthquake lists
// name prefectures by these codes.
var Prefectures = [47]string{
	"北海道", "青森県", "岩手県", "宮城県", "秋田県", "山形県", "福島県",
	"茨城県", "栃木県", "群馬県", "埼玉県", "千葉県", "東京都", "神奈川県",
	"新潟県", "富山県", "石川県", "福井県", "山梨県", "長野県", "岐阜県",
	"静岡県", "愛知県", "三重県", "滋賀県", "京都府", "大阪府", "兵庫県",
	"奈良県", "和歌山県", "鳥取県", "島根県", "岡山県", "広島県", "山口県",
	"徳島県", "香川県", "愛媛県", "高知県", "福岡県", "佐賀県", "長崎県",
	"熊本県", "大分県", "宮崎県", "鹿児島県", "沖縄県",
}

// PrefectureName is the name of a two-digit prefecture code ("13" is
// 東京都); "" for a code that is none.
func PrefectureName(code string) string {
	for i, name := range Prefectures {
		if fmt.Sprintf("%02d", i+1) == code {
			return name
		}
	}
	return ""
}

// PrefectureCode reads a prefecture as people write it — its code ("13"
// or "1" for 北海道) or its name, with or without 都, 府 or 県 (東京都,
// 大阪) — as its two-digit code; false when it is none.
func PrefectureCode(v string) (string, bool) {
	for i, pref := range Prefectures {
		c := fmt.Sprintf("%02d", i+1)
		if v == c || v == fmt.Sprint(i+1) || v == pref || v+"都" == pref || v+"府" == pref || v+"県" == pref {
			return c, true
		}
	}
	return "", false
}
