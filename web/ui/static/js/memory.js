// Memory and knowledge: conversation summaries with their tags, and what
// was learnt from the web with its sources. Both can be pruned.
import { get, request } from './api.js';
import { $, armed, el, empty, fail, spaceLabel, start, when } from './ui.js';

const list = (res, key) => (Array.isArray(res) ? res : (res && res[key]) || []);

async function loadMemories() {
	const sid = $('memory-session').value;
	const res = await get('/api/memory' + (sid ? '?session_id=' + encodeURIComponent(sid) : ''));
	const items = list(res, 'memories');
	const box = $('memories');
	if (!items.length) {
		empty(box, '要約はまだありません。会話が長くなると古い部分が要約されます。');
		return;
	}
	box.replaceChildren(...items.map((m) => {
		const li = el('li', { class: 'entry', dataset: { id: m.id } });
		li.append(
			el('div', { class: 'row' },
				el('span', { class: 'muted small' }, when(m.created_at), ' ', m.session_title || m.session_key || '', ' ', spaceLabel(m)),
				armed(el('button', { type: 'button', class: 'link danger' }, '削除'), '本当に削除', async () => {
					try {
						await request('DELETE', `/api/memory/${encodeURIComponent(m.id)}`);
						li.remove();
						if (!box.children.length) empty(box, '要約はありません。');
					} catch (err) {
						fail(err);
					}
				})),
			el('p', {}, m.summary || m.content || ''),
			el('div', {}, (m.tags || []).map((t) => el('span', { class: 'tag' }, typeof t === 'string' ? t : t.tag || t.name))));
		return li;
	}));
}

function sourceLinks(sources) {
	return el('ul', { class: 'small' }, (sources || []).map((s) => el('li', {},
		/^https?:/i.test(s.url || '') ? el('a', { href: s.url, target: '_blank', rel: 'noopener noreferrer' }, s.title || s.url) : (s.title || s.url || ''))));
}

async function loadKnowledge() {
	const items = list(await get('/api/knowledge'), 'entries');
	const box = $('knowledge');
	if (!items.length) {
		empty(box, 'ナレッジはまだありません。Web 検索の結果がここに貯まります。');
		return;
	}
	box.replaceChildren(...items.map((k) => {
		const li = el('li', { class: 'entry', dataset: { id: k.id } });
		const more = el('div', { hidden: true });
		li.append(
			el('div', { class: 'row' },
				el('strong', { class: 'grow' }, k.title || k.query || k.topic || '（無題）'), spaceLabel(k),
				el('span', { class: 'muted small' }, when(k.created_at || k.updated_at)),
				el('button', { type: 'button', class: 'link', 'aria-expanded': 'false', onclick: async (ev) => {
					const open = more.hidden;
					ev.currentTarget.setAttribute('aria-expanded', String(open));
					more.hidden = !open;
					if (open && !more.childElementCount) {
						try {
							const full = await get(`/api/knowledge/${encodeURIComponent(k.id)}`);
							more.append(el('p', {}, full.content || full.summary || ''), sourceLinks(full.sources));
						} catch (err) {
							fail(err);
						}
					}
				} }, '詳しく'),
				armed(el('button', { type: 'button', class: 'link danger' }, '削除'), '本当に削除', async () => {
					try {
						await request('DELETE', `/api/knowledge/${encodeURIComponent(k.id)}`);
						li.remove();
						if (!box.children.length) empty(box, 'ナレッジはありません。');
					} catch (err) {
						fail(err);
					}
				})),
			el('p', {}, k.summary || (k.content || '').slice(0, 300)),
			k.sources ? sourceLinks(k.sources) : null,
			more);
		return li;
	}));
}

async function loadSessions() {
	const sessions = (await get('/chat/sessions')) || [];
	const sel = $('memory-session');
	sel.append(...sessions.map((s) => el('option', { value: String(s.id) }, (s.source === 'discord' ? '[Discord] ' : '') + (s.title || '（無題）'))));
}

start();
$('memory-session').addEventListener('change', () => loadMemories().catch(fail));
loadMemories().catch(fail);
loadKnowledge().catch(fail);
loadSessions().catch(fail);
