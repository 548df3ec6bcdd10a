package commands

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/yorozu-bot/yorozu/db"
)

// OfferPrefix starts the custom ids of an offer's buttons:
// yz:o:<offer id>:y (accept) or :n (decline). The id needs no signature:
// a press counts only from the member the stored offer was made to.
const OfferPrefix = "yz:o:"

// OfferButtonID is the custom id of offer id's accept (or decline) button.
func OfferButtonID(id int64, accept bool) string {
	a := "n"
	if accept {
		a = "y"
	}
	return OfferPrefix + strconv.FormatInt(id, 10) + ":" + a
}

// OfferAction does what an accepted offer of its kind proposed, for the
// press p that accepted it (the presser's permissions), and returns
// what the offer's message then says under the preview (✅ 作成しました).
// An error leaves the offer open to be pressed again; its text, when it is
// a Refusal, is shown to the member. o.Attempts above 1 says an earlier
// press may have reached Discord without learning so: the action looks
// for what that one made before making it again.
type OfferAction func(ctx context.Context, o db.Offer, p Press) (string, error)

// Refusal is an error whose text is for the member: a missing permission,
// a time gone by.
type Refusal string

func (r Refusal) Error() string { return string(r) }

// OfferLifetime is how long after it was made an offer may be answered;
// the offers older than it are deleted by a daily job.
const OfferLifetime = 7 * 24 * time.Hour

// offerLease is how long an accepted offer's work (a Discord call or two,
// each bounded well under it) may run before a later press may take the
// offer over, its first process taken for gone.
const offerLease = 3 * time.Minute

// OfferButtons answers the presses of offers' buttons: only the member the
// offer was made to may press; the first press decides, and an accepted
// offer is done by the action of its kind. The claim is one statement
// before the action runs, so a double press (or a retry) acts once; an
// action that fails gives the offer back for another press.
func OfferButtons(q db.Querier, actions map[string]OfferAction, log *slog.Logger) Buttons {
	return Buttons{Prefix: OfferPrefix, Press: func(ctx context.Context, p Press) PressReply {
		return pressOffer(ctx, q, actions, p, log)
	}}
}

func pressOffer(ctx context.Context, q db.Querier, actions map[string]OfferAction, p Press, log *slog.Logger) PressReply {
	rest, _ := strings.CutPrefix(p.CustomID, OfferPrefix)
	idText, a, ok := strings.Cut(rest, ":")
	id, err := strconv.ParseInt(idText, 10, 64)
	if !ok || err != nil || a != "y" && a != "n" {
		return PressReply{Text: "このボタンは使えません。"}
	}
	o, err := db.DecideOffer(ctx, q, db.OfferPress{ID: id, UserID: p.UserID, Accept: a == "y",
		Lifetime: OfferLifetime, Lease: offerLease})
	switch {
	case errors.Is(err, db.ErrNotOffered):
		return PressReply{Text: "このボタンを押せるのは、頼んだ本人だけです。"}
	case errors.Is(err, db.ErrOfferDecided):
		return PressReply{Text: "この提案にはもう答えが出ています。"}
	case errors.Is(err, db.ErrOfferBusy):
		return PressReply{Text: "この提案はいま処理しているところです。少し待ってから結果を確かめてください。"}
	case errors.Is(err, db.ErrOfferExpired), errors.Is(err, db.ErrNotFound):
		// Offers are deleted once expired: one not found is one of those.
		return PressReply{Text: fmt.Sprintf("この提案は期限切れです（提案から%d日を過ぎると押せません）。必要なら、もう一度よろずに頼んでください。", int(OfferLifetime.Hours()/24))}
	case err != nil:
		log.Error("offer press", "offer_id", id, "err", err)
		return PressReply{Text: "いまは操作できませんでした。しばらくしてからもう一度お試しください。"}
	}
	if !o.Accepted {
		return PressReply{Update: p.Content + "\n（見送りました）"}
	}
	act, ok := actions[o.Kind]
	if !ok {
		err = fmt.Errorf("no action for %s offers", o.Kind)
	} else {
		var done string
		if done, err = act(ctx, o, p); err == nil {
			if ferr := db.FinishOffer(context.WithoutCancel(ctx), q, o.ID); ferr != nil {
				// Done on Discord all the same; a later press past the
				// lease finds what this one made (Offer.Attempts).
				log.Error("finish offer", "offer_id", o.ID, "err", ferr)
			}
			return PressReply{Update: p.Content + "\n" + done}
		}
	}
	if rerr := db.ReopenOffer(context.WithoutCancel(ctx), q, o.ID, o.Attempts); rerr != nil {
		log.Error("reopen offer", "offer_id", o.ID, "err", rerr)
	}
	var refusal Refusal
	if errors.As(err, &refusal) {
		return PressReply{Text: string(refusal)}
	}
	log.Error("offer action", "offer_id", o.ID, "kind", o.Kind, "err", err)
	return PressReply{Text: "うまくいきませんでした。しばらくしてからもう一度押してください。"}
}
