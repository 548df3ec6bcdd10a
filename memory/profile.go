package memory

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/yorozu-bot/yorozu/db"
)

// Limits of a member's profile in one space.
const (
	// MaxFacts is how many facts one member may keep in one space.
	MaxFacts = 30
	// MaxFactChars is the longest fact, in characters.
	MaxFactChars = 200
	// ProfileShare is the most of the token budget the speaker's facts
	// take; they are short, and the conversation comes first.
	ProfileShare = 0.05
)

// FactOfferKind is the kind of an offer to keep a fact (the model's
// offer_profile_fact), decided by its member's press.
const FactOfferKind = "profile"

// FactOffer is what an offer to keep a fact holds until it is accepted.
type FactOffer struct {
	Fact string `json:"fact"`
}

// Why a fact is refused. The adapter tells the member in their words.
var (
	ErrFactEmpty    = errors.New("empty fact")
	ErrFactTooLong  = errors.New("fact too long")
	ErrFactOfOthers = errors.New("fact about someone else")
	// ErrTooManyFacts: the member keeps MaxFacts in the space already.
	ErrTooManyFacts = db.ErrTooManyFacts
)

// CheckFact reports why text cannot be kept as a fact about its author:
// empty, longer than MaxFactChars, or about someone else (another member
// mentioned, or another person the subject before the author is).
func CheckFact(text string) error {
	text = strings.TrimSpace(text)
	switch {
	case text == "":
		return ErrFactEmpty
	case utf8.RuneCountInString(text) > MaxFactChars:
		return fmt.Errorf("%w: %d characters, at most %d", ErrFactTooLong, utf8.RuneCountInString(text), MaxFactChars)
	case aboutOthers(text):
		return ErrFactOfOthers
	}
	return nil
}

var (
	// selfWords name the author: 私はエビアレルギー, my birthday is ….
	selfWords = regexp.MustCompile(`(?i)(私|わたし|わたくし|僕|ぼく|俺|おれ|あたし|自分|\bI\b|\bI'm\b|\bmy\b|\bme\b)`)
	// otherWords name someone else as the subject: 田中さんは, 彼女の,
	// <@123>, he is ….
	otherWords = regexp.MustCompile(`(?i)(<@!?\d+>|\S(さん|くん|君|ちゃん|様|氏|先輩|先生)(は|が|の|って|も)|(彼女|彼|あいつ|あの人|この人|その人)(は|が|の|って|も)|\b(he|she|they|his|her|their)\b)`)
)

// aboutOthers reports whether text speaks of someone else before (or
// without) its author: 「田中さんはエビアレルギー」 is, 「私は田中さんの友達」 is not.
func aboutOthers(text string) bool {
	other := otherWords.FindStringIndex(text)
	if other == nil {
		return false
	}
	self := selfWords.FindStringIndex(text)
	return self == nil || other[0] < self[0]
}

// AddFact keeps text as a fact about userID (named name) in space, after
// CheckFact; the same text twice is kept once. Past MaxFacts it is
// ErrTooManyFacts.
func (m *Memory) AddFact(ctx context.Context, space Space, userID, name, text string) (db.MemberFact, error) {
	text = strings.Join(strings.Fields(text), " ")
	if err := CheckFact(text); err != nil {
		return db.MemberFact{}, err
	}
	if userID == "" || space == "" {
		return db.MemberFact{}, errors.New("add fact: no member or space")
	}
	defer m.dropMember(space, userID)
	return db.AddMemberFact(ctx, m.pool, string(space), userID, name, text, MaxFacts)
}

// Facts lists userID's facts in space, oldest first.
func (m *Memory) Facts(ctx context.Context, space Space, userID string) ([]db.MemberFact, error) {
	return db.MemberFacts(ctx, m.pool, string(space), userID)
}

// SpaceFacts lists every member's facts in space (the admin page).
func (m *Memory) SpaceFacts(ctx context.Context, space Space) ([]db.MemberFact, error) {
	return db.SpaceMemberFacts(ctx, m.pool, string(space))
}

// ForgetFact deletes userID's fact id in space; db.ErrNotFound when they
// have none such.
func (m *Memory) ForgetFact(ctx context.Context, space Space, userID string, id int64) error {
	defer m.dropMember(space, userID)
	return db.DeleteMemberFact(ctx, m.pool, string(space), userID, id)
}

// ForgetFacts deletes all of userID's facts in space and says how many.
func (m *Memory) ForgetFacts(ctx context.Context, space Space, userID string) (int64, error) {
	defer m.dropMember(space, userID)
	return db.DeleteMemberFacts(ctx, m.pool, string(space), userID)
}

// ForgetSpaceFact deletes fact id in space, whoever's it is (the admin page).
func (m *Memory) ForgetSpaceFact(ctx context.Context, space Space, id int64) error {
	defer m.dropSpace(space)
	return db.DeleteSpaceMemberFact(ctx, m.pool, string(space), id)
}

// WithSpeaker names the member who speaks this turn (their platform user
// id and display name): their facts in the turn's space join the context,
// within ProfileShare of the budget. "" adds nothing.
func WithSpeaker(userID, name string) ContextOption {
	return func(e *contextExtras) { e.speaker, e.speakerName = userID, name }
}

// profileLayer shows the speaker's facts, newest kept first when they do
// not all fit.
func profileLayer(name string, facts []db.MemberFact) layer {
	if name == "" {
		name = "話している人"
	}
	l := layer{title: "## " + name + "について（本人が覚えておいてと頼んだこと）\n" +
		"答えに関わるときだけ使ってください。ほかの人の発言にはあてはめないこと。", keepTail: true}
	for _, f := range facts {
		it := "- " + f.Content
		l.items = append(l.items, it)
		l.tokens = append(l.tokens, EstimateTokens(it)+1)
	}
	return l
}

// IsFactRefusal reports whether err refuses a fact for what it is (not a
// failure to store it).
func IsFactRefusal(err error) bool {
	for _, e := range []error{ErrFactEmpty, ErrFactTooLong, ErrFactOfOthers, ErrTooManyFacts} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// FactRefusal is what a member is told when fact was not kept because of
// err, in English when en.
func FactRefusal(err error, fact string, en bool) string {
	switch {
	case errors.Is(err, ErrFactEmpty) && en:
		return "I found nothing to remember. Write it after the request, like \"remember: I'm allergic to shrimp\"."
	case errors.Is(err, ErrFactEmpty):
		return "覚えることが見つかりませんでした。「覚えておいて：私はエビアレルギー」のように、覚えてほしいことを続けて書いてください。"
	case errors.Is(err, ErrFactTooLong) && en:
		return fmt.Sprintf("That is too long to remember (%d characters; at most %d). Please make it shorter.", utf8.RuneCountInString(fact), MaxFactChars)
	case errors.Is(err, ErrFactTooLong):
		return fmt.Sprintf("長すぎて覚えられません（%d 文字。%d 文字までです）。短くまとめてもう一度お願いします。", utf8.RuneCountInString(fact), MaxFactChars)
	case errors.Is(err, ErrFactOfOthers) && en:
		return "I only remember what members tell me about themselves, not about someone else."
	case errors.Is(err, ErrFactOfOthers):
		return "ほかの人のことは覚えられません。覚えるのは、ご本人が自分について頼んだことだけです。"
	case errors.Is(err, ErrTooManyFacts) && en:
		return fmt.Sprintf("Your profile here is full (%d facts). Delete some with `/profile forget` first.", MaxFacts)
	case errors.Is(err, ErrTooManyFacts):
		return fmt.Sprintf("ここで覚えられるのは %d 件までです。`/profile forget` で要らないものを消してからもう一度お願いします。", MaxFacts)
	case en:
		return "Sorry, I could not remember that. Please try again later."
	}
	return "ごめんなさい、覚えられませんでした。しばらくしてからもう一度お試しください。"
}
