// Memory and knowledge: conversation summaries with their tags, what was
// learnt from the web with its sources (both can be pruned), and the topic
// words with a tag backfill.
import { get, request } from './api.js';
import { render } from './markdown.js';
import { startProfiles } from './profiles.js';
import { $, armed, el, empty, fail, knowNames, spaceLabel, spacePicker, start, toast, when } from './ui.js';

const titles = new Map(); // session id -> title, once the list is in

function sessionName(m) {
	const t = titles.get(String(m.session_id));
	return t || m.session_key || '';
}

async function loadMemories() {
	const sid = $('memory-session').value;
	const [items = []] = await Promise.all([get('/api/memory' + (sid ? '?session_id=' + encodeURIComponent(sid) : '')), knowNames()]);
	const box = $('memories');
	if (!items.length) {
		empty(box, '要約はまだありません。会話が長くなると古い部分が要約されます。');
		return;
	}
	box.replaceChildren(...items.map((m) => {
		const li = el('li', { class: 'entry', dataset: { id: m.id } });
		li.append(
			el('div', { class: 'row' },
				el('span', { class: 'muted small grow' }, when(m.created_at), '　', el('span', { class: 'session', dataset: { session: m.session_id } }, sessionName(m)), ' ', spaceLabel(m),
					m.message_count ? `　${m.message_count} 件のメッセージから` : ''),
				armed(el('button', { type: 'button', class: 'link danger' }, '削除'), '本当に削除', async () => {
					try {
						const res = await request('DELETE', `/api/memory/${encodeURIComponent(m.id)}`);
						li.remove();
						if (res && res.restored_messages) toast(`${res.restored_messages} 件のメッセージが文脈に戻りました。`, 'info');
						if (!box.children.length) empty(box, '要約はありません。');
					} catch (err) {
						fail(err);
					}
				})),
			el('p', {}, m.content || ''),
			el('div', {}, (m.tags || []).map((t) => el('span', { class: 'tag' }, t))));
		return li;
	}));
}

function sourceLinks(sources) {
	return el('ul', { class: 'small' }, (sources || []).map((s) => el('li', {},
		/^https?:/i.test(s.url || '') ? el('a', { href: s.url, target: '_blank', rel: 'noopener noreferrer' }, s.title || s.url) : (s.title || s.url || ''))));
}

const knowledgePage = 50;
let knowledgeBefore = '';

function knowledgeItem(k) {
	const li = el('li', { class: 'entry', dataset: { id: k.id } });
	const more = el('div', { class: 'more', hidden: true });
	const box = $('knowledge');
	li.append(
		el('div', { class: 'row' },
			el('strong', { class: 'grow' }, k.title || k.query || '（無題）'), spaceLabel(k),
			el('span', { class: 'muted small' }, when(k.created_at)),
			el('button', { type: 'button', class: 'link', 'aria-expanded': 'false', onclick: async (ev) => {
				const button = ev.currentTarget;
				const open = more.hidden;
				button.setAttribute('aria-expanded', String(open));
				more.hidden = !open;
				if (open && !more.childElementCount) {
					try {
						const full = await get(`/api/knowledge/${encodeURIComponent(k.id)}`);
						const body = el('div', { class: 'md' });
						render(body, full.body || '');
						more.append(body, full.sources && full.sources.length ? el('p', { class: 'muted small' }, '出典') : null, sourceLinks(full.sources));
					} catch (err) {
						fail(err);
					}
				}
			} }, '詳しく'),
			armed(el('button', { type: 'button', class: 'link danger' }, '削除'), '本当に削除', async () => {
				try {
					await request('DELETE', `/api/knowledge/${encodeURIComponent(k.id)}`);
					li.remove();
					if (!box.children.length) empty(box, '知識はありません。');
				} catch (err) {
					fail(err);
				}
			})),
		el('p', { class: 'muted small' }, [k.query ? '検索: ' + k.query : '', k.tool, k.file_path].filter(Boolean).join('　')),
		more);
	return li;
}

async function loadKnowledge() {
	const [items = []] = await Promise.all([get(`/api/knowledge?limit=${knowledgePage}` + (knowledgeBefore ? '&before=' + encodeURIComponent(knowledgeBefore) : '')), knowNames()]);
	const box = $('knowledge');
	if (!knowledgeBefore) {
		if (!items.length) empty(box, '知識はまだありません。Web 検索で見つけたことがここに貯まります。');
		else box.replaceChildren();
	}
	box.append(...items.map(knowledgeItem));
	if (items.length) knowledgeBefore = String(items[items.length - 1].id);
	$('knowledge-more').hidden = items.length < knowledgePage;
}

async function loadSessions() {
	const sessions = (await get('/chat/sessions')) || [];
	for (const s of sessions) titles.set(String(s.id), (s.source === 'discord' ? '[Discord] ' : '') + (s.title || '（無題）'));
	$('memory-session').append(...sessions.map((s) => el('option', { value: String(s.id) }, titles.get(String(s.id)))));
	// Summaries shown before the titles were in name their conversation now.
	document.querySelectorAll('#memories .session').forEach((n) => {
		n.textContent = titles.get(n.dataset.session) || n.textContent;
	});
}

async function loadWords() {
	const sel = $('words-space');
	if (!sel.options.length) await spacePicker(sel, '');
	const res = (await get('/api/system/word-pool?space=' + encodeURIComponent(sel.value))) || {};
	const words = res.words || [];
	$('words').replaceChildren(...(words.length ? words.map((w) => el('span', { class: 'tag' }, w))
		: [el('span', { class: 'muted' }, 'まだありません。会話が増えると集まります。')]));
}

async function backfill(ev) {
	const b = ev.currentTarget;
	b.disabled = true;
	try {
		const res = await request('POST', '/api/system/backfill-tags');
		$('backfill-result').textContent = res && res.queued ? `${res.queued} 件のメッセージにタグを付けています。` : 'タグのないメッセージはありません。';
	} catch (err) {
		fail(err);
	} finally {
		b.disabled = false;
	}
}

start();
$('memory-session').addEventListener('change', () => loadMemories().catch(fail));
$('knowledge-more').addEventListener('click', () => loadKnowledge().catch(fail));
$('backfill').addEventListener('click', backfill);
$('words-space').addEventListener('change', () => loadWords().catch(fail));
// The summaries first; the conversation titles replace their keys when in.
loadMemories().catch(fail);
loadKnowledge().catch(fail);
loadSessions().catch(fail);
loadWords().catch(fail);
startProfiles();
