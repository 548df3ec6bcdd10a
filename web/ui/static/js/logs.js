// Model call logs, newest first, a page at a time.
import { get, request } from './api.js';
import { $, armed, el, empty, fail, knowNames, spaceName, start, when } from './ui.js';

const pageSize = 50;
let before = '';

// kindLabel names what a call was for.
const kindLabel = { reply: '会話', summary: '要約', tags: 'タグ', knowledge: '知識', embed: '埋め込み', job: '定期投稿' };

function latency(ms) {
	if (ms == null) return '';
	return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} 秒`;
}

function row(l) {
	const tr = el('tr', { class: l.error ? 'error' : l.stopped ? 'stopped' : '', dataset: { id: l.id } });
	// The conversation by its title, a link to it; the key only when it is gone.
	const conv = l.session_id
		? el('a', { href: '/?session=' + encodeURIComponent(l.session_id), title: l.session_key }, l.session_title || l.session_key)
		: (l.session_title || l.session_key || '');
	tr.append(
		el('td', { class: 'small', dataset: { label: '日時' } }, when(l.created_at)),
		el('td', { dataset: { label: 'モデル' } }, l.model || '', l.kind ? el('span', { class: 'muted small' }, ' ' + (kindLabel[l.kind] || l.kind)) : null),
		el('td', { class: 'num', dataset: { label: '時間' } }, latency(l.latency_ms)),
		el('td', { class: 'num', dataset: { label: '入力' } }, l.prompt_tokens ?? ''),
		el('td', { class: 'num', dataset: { label: '出力' } }, l.completion_tokens ?? ''),
		el('td', { class: 'small', title: l.space || '', dataset: { label: 'スペース' } }, spaceName(l.space) || '—'),
		el('td', { class: 'small', dataset: { label: '会話' } }, conv),
		el('td', { class: 'small', dataset: { label: l.stopped ? '状態' : 'エラー' } }, l.stopped ? el('span', { class: 'badge' }, '停止') : (l.error || '')),
		el('td', {},
			el('button', { type: 'button', class: 'link', onclick: () => detail(l.id) }, '詳細'),
			armed(el('button', { type: 'button', class: 'link danger' }, '削除'), '本当に削除', async () => {
				try {
					await request('DELETE', `/api/logs/${encodeURIComponent(l.id)}`);
					tr.remove();
				} catch (err) {
					fail(err);
				}
			})));
	return tr;
}

async function more() {
	const [res] = await Promise.all([get(`/api/logs?limit=${pageSize}` + (before ? '&before=' + encodeURIComponent(before) : '')), knowNames()]);
	const items = Array.isArray(res) ? res : (res && res.logs) || [];
	const body = $('logs');
	if (!before) body.replaceChildren();
	if (!before && !items.length) empty(body, 'ログはまだありません。');
	body.append(...items.map(row));
	if (items.length) before = String(res.next_before ?? items[items.length - 1].id);
	$('more').hidden = items.length < pageSize;
}

async function detail(id) {
	try {
		const l = await get(`/api/logs/${encodeURIComponent(id)}`);
		$('log-title').textContent = `${l.model || ''} ・ ${when(l.created_at)}`;
		const pretty = (v) => (typeof v === 'string' ? v : JSON.stringify(v, null, 2));
		$('log-body').textContent = [
			l.error ? 'エラー: ' + l.error : '',
			'--- リクエスト ---', pretty(l.request ?? ''),
			'--- レスポンス ---', pretty(l.response ?? ''),
		].filter(Boolean).join('\n');
		$('log-detail').hidden = false;
		$('log-close').focus();
	} catch (err) {
		fail(err);
	}
}

start();
$('more').addEventListener('click', () => more().catch(fail));
$('log-close').addEventListener('click', () => { $('log-detail').hidden = true; });
more().catch(fail);
