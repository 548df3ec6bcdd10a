// Settings (which value is in force and where it comes from) and model presets.
import { get, request } from './api.js';
import {
	$, armed, channelGroups, channelName, el, empty, fail, fieldMessage, knowNames, knownChannels, showFieldError, start, toast,
} from './ui.js';

let shown = [];

// shownValue is a value as the page says it: a channel by its name.
function shownValue(s, v) {
	return s.kind === 'channel' ? channelName(v) : v;
}

// origin says where the value in force comes from and when a change applies.
function origin(s) {
	const from = s.source === 'page'
		? `この画面で設定（環境変数 ${s.env} の値${s.default ? '「' + shownValue(s, s.default) + '」' : 'は空'}より優先）`
		: `環境変数 ${s.env}${s.value ? '' : '（未設定）'}`;
	return from + (s.applies === 'now' ? '・変更はすぐ反映' : '・変更は再起動後に反映');
}

// channelPicker offers the channels the bot has seen, by server and name;
// null when it has seen none yet, and the id is typed instead.
function channelPicker(id, s) {
	const groups = channelGroups();
	if (!groups.length) return null;
	const input = el('select', { id, name: s.key, 'aria-describedby': id + '-error' }, el('option', { value: '' }, 'なし'), ...groups);
	// A channel set before the bot saw it stays chosen, said as an id.
	if (s.value && !knownChannels().some((c) => c.id === s.value)) input.append(el('option', { value: s.value }, channelName(s.value)));
	input.value = s.value ?? '';
	return input;
}

// field is a setting's input: a list of its choices, or a text (a secret's
// masked).
function field(id, s) {
	if (s.choices && s.choices.length) {
		const input = el('select', { id, name: s.key, 'aria-describedby': id + '-error' }, s.choices.map((c) => el('option', { value: c }, c)));
		input.value = s.value;
		return input;
	}
	const input = el('input', {
		id, name: s.key, type: s.secret ? 'password' : 'text', autocomplete: 'off', 'aria-describedby': id + '-error',
		placeholder: s.secret ? (s.value ? s.value + '（変えるときだけ入力）' : '未設定') : s.kind === 'channel' ? 'チャンネル ID（数字）' : '',
	});
	if (!s.secret) input.value = s.value ?? '';
	return input;
}

async function load() {
	const [got] = await Promise.all([get('/api/settings'), knowNames()]);
	const res = got || {};
	shown = res.settings || [];
	const box = $('settings');
	if (!shown.length) {
		box.replaceChildren(el('p', { class: 'empty' }, '設定項目がありません。'));
		return;
	}
	box.replaceChildren(...shown.flatMap((s) => {
		const id = 'set-' + s.key;
		const input = (s.kind === 'channel' && channelPicker(id, s)) || field(id, s);
		const reset = s.source === 'page' ? armed(el('button', { type: 'button', class: 'link small' }, '環境変数の値に戻す'), '本当に戻す', async () => {
			try {
				await request('PUT', '/api/settings', { [s.key]: null });
				toast(`${s.label || s.key} を環境変数の値に戻しました。`, 'info');
				await load();
			} catch (err) {
				fail(err);
			}
		}) : null;
		return [
			el('label', { for: id }, s.label || s.key),
			el('div', { class: 'setting-value' }, input, el('p', { class: 'field-error', id: id + '-error', hidden: true })),
			el('div', { class: 'source' }, origin(s), reset ? ' ' : '', reset),
		];
	}));
}

async function save(ev) {
	ev.preventDefault();
	const change = {};
	for (const s of shown) {
		const v = ev.target.elements[s.key].value.trim();
		// A secret field left empty keeps the secret: it is never sent back.
		if (s.secret ? v !== '' : v !== String(s.value ?? '')) change[s.key] = v;
	}
	for (const s of shown) showFieldError(ev.target.elements[s.key], '');
	if (!Object.keys(change).length) {
		toast('変更はありません。', 'info');
		return;
	}
	try {
		await request('PUT', '/api/settings', change);
		toast('保存しました。', 'info');
		await load();
	} catch (err) {
		// A refused value is said under its field; nothing was saved.
		const field = err.status === 400 && err.field && ev.target.elements[err.field];
		if (!field) {
			fail(err);
			return;
		}
		showFieldError(field, fieldMessage(err));
		field.focus();
	}
}

async function loadPresets() {
	const items = (await get('/api/models/presets')) || [];
	const box = $('presets');
	if (!items.length) {
		empty(box, 'プリセットはありません。よく使うモデルを名前付きで登録すると、チャットのモデル選択に出ます。');
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
	const res = (await get('/api/models')) || {};
	const labels = res.labels || {};
	$('installed-models').replaceChildren(...(res.installed || []).map((name) => el('option', { value: name, label: labels[name] || name })));
}

// The model servers: each one's state, slots in use and models (read-only).
async function loadServers() {
	const res = (await get('/api/model-servers')) || {};
	const servers = res.servers || [];
	$('model-servers').replaceChildren(...(servers.length ? servers.map((s) => el('li', {},
		el('strong', {}, s.name), ` ${s.kind}・${s.up ? '接続中' : '接続できません'}・スロット ${s.in_use}/${s.slots}`,
		el('div', { class: 'muted small' }, s.up ? (s.models.length ? s.models.join('、') : 'モデルがありません') : s.error))) :
		[el('li', { class: 'empty' }, 'モデルサーバーがありません。')]));
}

start();
$('settings-form').addEventListener('submit', save);
$('preset-form').addEventListener('submit', async (ev) => {
	ev.preventDefault();
	const fields = { label: $('preset-name'), model: $('preset-model') };
	for (const f of Object.values(fields)) showFieldError(f, '');
	try {
		await request('POST', '/api/models/presets', { label: fields.label.value.trim(), model: fields.model.value.trim() });
		ev.target.reset();
		await loadPresets();
	} catch (err) {
		const field = (err.status === 400 || err.status === 409) && fields[err.field];
		if (!field) {
			fail(err);
			return;
		}
		showFieldError(field, fieldMessage(err));
		field.focus();
	}
});
load().catch(fail);
loadPresets().catch(fail);
loadInstalled().catch(() => {});
loadServers().catch(fail);
