package main

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/yorozu-bot/yorozu/db"
)

// TestChannelsPageInBrowser: on the admin page a person gives a channel the
// bot has talked in a persona and a model; a model Ollama lacks is refused
// with its pull command; the next Discord turn there uses both. The mode
// and the channel talk are set there too.
func TestChannelsPageInBrowser(t *testing.T) {
	b := newBrowserPage(t)
	const password = "correct horse battery staple"
	h := &channelHarness{harness: start(t, map[string]string{"ADMIN_PASSWORD": password}), t: t}
	h.ollama.AddModel(otherModel, "completion", "tools")
	h.script()
	h.ask(channelID, "はじめまして")

	b.do("log in", chromedp.Navigate(h.httpURL+"/login?next=/channels"), chromedp.WaitVisible(chromedp.CSS("#password")),
		chromedp.SendKeys(chromedp.CSS("#password"), password), chromedp.Click(chromedp.CSS("#login-form button")),
		chromedp.WaitVisible(chromedp.CSS("#channels")))
	b.waitJS("the channel and its server", `document.querySelectorAll('#channels form').length === 2 &&
		[...document.querySelectorAll('#channel-models option')].some(o => o.value === '`+otherModel+`')`)
	form := `#channels form[data-kind="channel"]`
	b.do("a model Ollama lacks", chromedp.SetValue(chromedp.CSS(form+" input"), "llama3:70b"), chromedp.Click(chromedp.CSS(form+" button[type=submit]")))
	b.waitJS("the refusal naming the pull", `[...document.querySelectorAll('.toast')].some(e => e.textContent.includes('ollama pull llama3:70b'))`)
	b.noProblems("the refused model", "ollama pull llama3:70b")
	b.do("persona and model", chromedp.SetValue(chromedp.CSS(form+" textarea"), "あなたは海賊です。"),
		chromedp.SetValue(chromedp.CSS(form+" input"), otherModel), chromedp.Click(chromedp.CSS(form+" button[type=submit]")))
	b.waitJS("saved", `document.querySelector('`+form+`').textContent.includes('いま: チャンネルの設定のペルソナ／モデル `+otherModel+`（チャンネルの設定）')`)
	b.do("mode free", chromedp.SetValue(chromedp.CSS(form+" select"), "free"), chromedp.Click(chromedp.CSS(form+" button[type=submit]")))
	b.waitJS("mode saved", `document.querySelector('`+form+`').textContent.includes('モード free（チャンネルの設定）')`)
	b.do("channel talk off", chromedp.SetValue(chromedp.CSS(form+` select[aria-label$="の会話の読み込み"]`), "off"),
		chromedp.Click(chromedp.CSS(form+" button[type=submit]")))
	b.waitJS("talk saved", `document.querySelector('`+form+`').textContent.includes('会話の読み込み off（チャンネルの設定）')`)
	b.screenshot("channels")
	b.noProblems("channels")
	if e, err := db.ChannelSettingsInForce(context.Background(), h.pool, guildID, channelID, ""); err != nil || e.Mode != db.ModeFree || e.Talk {
		t.Fatalf("stored mode = %+v, %v", e, err)
	}

	e, err := db.ChannelSettingsInForce(context.Background(), h.pool, guildID, channelID, "")
	if err != nil || e.Persona != "あなたは海賊です。" || e.Model != otherModel {
		t.Fatalf("stored = %+v, %v", e, err)
	}
	r := h.ask(channelID, "誰？")
	if p := personaOf(t, r); p != "あなたは海賊です。" || r.Model != otherModel {
		t.Errorf("the next turn has persona %q and model %q", p, r.Model)
	}
}
