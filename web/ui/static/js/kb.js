// The knowledge base folder: its files (read-only) and a sync button.
import { get, request } from './api.js';
import { $, bytes, el, empty, fail, start, toast, when } from './ui.js';

// zero is Go's zero time, which the API sends for "never".
const never = (t) => !t || t.startsWith('0001-');

async function load() {
	const kb = (await get('/api/knowledge-base')) || {};
	const files = kb.files || [];
	const facts = [];
	if (kb.dir) facts.push('フォルダ: ' + kb.dir);
	if (kb.embed_model) facts.push('埋め込みモデル: ' + kb.embed_model);
	facts.push('最終同期: ' + (never(kb.last_sync) ? 'まだ' : when(kb.last_sync)));
	facts.push(`${files.length} ファイル・${bytes(kb.total_size || 0)}`);
	$('kb-summary').textContent = facts.join('　');
	const err = $('kb-error');
	err.textContent = kb.sync_error ? '前回の同期で問題がありました: ' + kb.sync_error : '';
	err.hidden = !kb.sync_error;
	const body = $('kb-files');
	if (!files.length) {
		empty(body, 'ファイルはありません。Markdown ファイルをフォルダに置いて「同期」を押してください。');
		return;
	}
	body.replaceChildren(...files.map((f) => el('tr', {},
		el('td', {}, el('button', { type: 'button', class: 'link', onclick: () => show(f.path) }, f.path),
			f.title && f.title !== f.path ? el('div', { class: 'muted small' }, f.title) : null),
		el('td', { class: 'num' }, bytes(f.size)),
		el('td', { class: 'small' + (f.indexed ? ' muted' : '') }, f.indexed && !never(f.indexed_at) ? when(f.indexed_at) : '未同期'))));
}

async function show(path) {
	try {
		const f = await get('/api/knowledge-base/file?path=' + encodeURIComponent(path));
		$('kb-path').textContent = path;
		const view = $('kb-view');
		view.textContent = typeof f === 'string' ? f : f.content ?? f.text ?? '';
		view.hidden = false;
	} catch (err) {
		fail(err);
	}
}

start();
$('sync').addEventListener('click', async (ev) => {
	const b = ev.currentTarget;
	b.disabled = true;
	try {
		await request('POST', '/api/knowledge-base/sync');
		toast('同期しました。', 'info');
		await load();
	} catch (err) {
		fail(err);
	} finally {
		b.disabled = false;
	}
});
load().catch(fail);
