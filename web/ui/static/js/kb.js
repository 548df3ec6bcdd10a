// The knowledge base folder: its files (read-only) and a sync button.
import { get, request } from './api.js';
import { $, bytes, el, empty, fail, start, toast, when } from './ui.js';

async function load() {
	const kb = await get('/api/knowledge-base');
	const files = (kb && kb.files) || [];
	const facts = [];
	if (kb && kb.dir) facts.push('フォルダ: ' + kb.dir);
	if (kb && kb.embedding_model) facts.push('埋め込みモデル: ' + kb.embedding_model);
	if (kb && kb.last_sync) facts.push('最終同期: ' + when(kb.last_sync));
	facts.push(`${files.length} ファイル`);
	$('kb-summary').textContent = facts.join('　');
	const body = $('kb-files');
	if (!files.length) {
		empty(body, 'ファイルはありません。Markdown ファイルをフォルダに置いて「同期」を押してください。');
		return;
	}
	body.replaceChildren(...files.map((f) => el('tr', {},
		el('td', {}, el('button', { type: 'button', class: 'link', onclick: () => show(f.path) }, f.path)),
		el('td', { class: 'num' }, bytes(f.size)),
		el('td', { class: 'small muted' }, when(f.synced_at || f.updated_at || f.indexed_at)))));
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
		toast('同期を始めました。', 'info');
		await load();
	} catch (err) {
		fail(err);
	} finally {
		b.disabled = false;
	}
});
load().catch(fail);
