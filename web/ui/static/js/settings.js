// Settings (which value is in force and where it comes from) and model presets.
import { get, optional, request } from './api.js';
import { $, armed, el, empty, fail, start, toast } from './ui.js';

const sourceLabel = { page: 'この画面で設定', env: '環境変数', default: '既定値' };

// rows accepts the list form [{key, value, source, secret}] or a map.
function rows(res) {
	const raw = Array.isArray(res) ? res : (res && res.settings) || res || {};
	if (Array.isArray(raw)) return raw;
	return Object.entries(raw).map(([key, v]) => (v && typeof v === 'object' ? { key, ...v } : { key, value: v }));
}

let shown = [];

async function load() {
	shown = rows(await get('/api/settings'));
	const box = $('settings');
	if (!shown.length) {
		box.replaceChildren(el('p', { class: 'empty' }, '設定項目がありません。'));
		return;
	}
	box.replaceChildren(...shown.flatMap((s) => {
		const id = 'set-' + s.key;
		const input = el('input', {
			id, name: s.key, type: s.secret ? 'password' : 'text', autocomplete: 'off',
			placeholder: s.secret ? (s.value ? s.value + '（変更するときだけ入力）' : '未設定') : (s.default ?? ''),
		});
		if (!s.secret) input.value = s.value ?? '';
		const from = [sourceLabel[s.source] || s.source, s.env ? `環境変数 ${s.env}` : ''].filter(Boolean).join('・');
		return [
			el('label', { for: id }, s.label || s.key),
			input,
			el('div', { class: 'source' }, '反映中: ', from || '—', s.description ? ' — ' + s.description : ''),
		];
	}));
}

async function save(ev) {
	ev.preventDefault();
	const change = {};
	for (const s of shown) {
		const v = ev.target.elements[s.key].value;
		if (s.secret ? v !== '' : v !== String(s.value ?? '')) change[s.key] = v;
	}
	if (!Object.keys(change).length) {
		toast('変更はありません。', 'info');
		return;
	}
	try {
		await request('PUT', '/api/settings', change);
		toast('保存しました。すぐに反映されます。', 'info');
		await load();
	} catch (err) {
		fail(err);
	}
}

async function loadPresets() {
	const res = await get('/api/models/presets');
	const items = Array.isArray(res) ? res : (res && res.presets) || [];
	const box = $('presets');
	if (!items.length) {
		empty(box, 'プリセットはありません。');
		return;
	}
	box.replaceChildren(...items.map((p) => el('li', { class: 'entry' }, el('div', { class: 'row' },
		el('strong', {}, p.label), el('span', { class: 'grow' }, p.model),
		armed(el('button', { type: 'button', class: 'link danger' }, '削除'), '本当に削除', async () => {
			try {
				await request('DELETE', `/api/models/presets/${encodeURIComponent(p.id)}`);
				await loadPresets();
			} catch (err) {
				fail(err);
			}
		})))));
}

async function loadInstalled() {
	const res = await optional('/api/models');
	const items = Array.isArray(res) ? res : (res && res.models) || [];
	$('installed-models').replaceChildren(...items.map((m) => el('option', { value: typeof m === 'string' ? m : m.name || m.model })));
}

start();
$('settings-form').addEventListener('submit', save);
$('preset-form').addEventListener('submit', async (ev) => {
	ev.preventDefault();
	try {
		await request('POST', '/api/models/presets', { label: $('preset-name').value.trim(), model: $('preset-model').value.trim() });
		ev.target.reset();
		await loadPresets();
	} catch (err) {
		fail(err);
	}
});
load().catch(fail);
loadPresets().catch(fail);
loadInstalled().catch(() => {});
