// Shared page parts: building elements, toasts, the status banner, logout.
import { get, request } from './api.js';

/**
 * el builds an element. attrs sets properties (on*: listeners, dataset and
 * hidden included); children are nodes or strings (always text, never HTML).
 */
export function el(tag, attrs = {}, ...children) {
	const node = document.createElement(tag);
	for (const [k, v] of Object.entries(attrs)) {
		if (v === undefined || v === null || v === false) continue;
		if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
		else if (k === 'dataset') Object.assign(node.dataset, v);
		else if (k === 'class') node.className = v;
		else if (k === 'value') node.value = v;
		else if (k in node && typeof v !== 'string') node[k] = v;
		else node.setAttribute(k, v === true ? '' : v);
	}
	for (const c of children.flat()) {
		if (c === undefined || c === null || c === false) continue;
		node.append(c instanceof Node ? c : String(c));
	}
	return node;
}

/** $ finds one element by id. */
export const $ = (id) => document.getElementById(id);

/** toast shows a short message for a few seconds; kind 'info' is not an error. */
export function toast(message, kind = 'error') {
	const box = $('toasts');
	if (!box) return;
	const t = el('div', { class: 'toast ' + kind, role: kind === 'error' ? 'alert' : 'status' },
		el('span', { class: 'grow' }, message),
		el('button', { type: 'button', 'aria-label': '閉じる', onclick: () => t.remove() }, '×'));
	box.append(t);
	setTimeout(() => t.remove(), kind === 'error' ? 8000 : 3000);
}

/**
 * armed makes button ask once more before a destructive action: the first
 * press relabels it (confirm), a second press within five seconds runs
 * action. No modal dialog, so it works the same from the keyboard.
 */
export function armed(button, confirmLabel, action) {
	const label = button.textContent;
	let timer = 0;
	const disarm = () => {
		clearTimeout(timer);
		timer = 0;
		button.textContent = label;
		button.classList.remove('armed');
	};
	button.addEventListener('click', () => {
		if (!timer) {
			button.textContent = confirmLabel;
			button.classList.add('armed');
			timer = setTimeout(disarm, 5000);
			return;
		}
		disarm();
		action();
	});
	button.addEventListener('blur', () => { if (timer) disarm(); });
	return button;
}

/** fail is the catch handler every screen uses: a toast with the message. */
export function fail(err) {
	if (err && err.status === 401) return;
	console.error(err);
	toast(err && err.message ? err.message : String(err));
}

const timeFmt = new Intl.DateTimeFormat('ja-JP', { dateStyle: 'short', timeStyle: 'short' });

/** when formats an RFC 3339 time for people; '' for none. */
export function when(t) {
	if (!t) return '';
	const d = new Date(t);
	return isNaN(d) ? String(t) : timeFmt.format(d);
}

/** bytes formats a size. */
export function bytes(n) {
	if (n == null) return '';
	if (n < 1024) return n + ' B';
	if (n < 1024 * 1024) return (n / 1024).toFixed(1) + ' KB';
	return (n / 1024 / 1024).toFixed(1) + ' MB';
}

// names is what the gateway last said servers, channels, threads and users
// are called (GET /api/names), read once per page load.
let names = { guilds: {}, channels: {}, users: {} };
let namesRead = null;

/**
 * knowNames resolves once the names are read; a screen awaits it before it
 * shows ids. Without them (an older server, an error) ids are shown, said
 * to be ids.
 */
export function knowNames() {
	if (!namesRead) {
		namesRead = get('/api/names')
			.then((n) => { if (n) names = { guilds: n.guilds || {}, channels: n.channels || {}, users: n.users || {} }; })
			.catch(() => {});
	}
	return namesRead;
}

/** guildName is a server's name, or its id said as one. */
export function guildName(id) {
	return names.guilds[id] || `サーバー（ID ${id}）`;
}

/**
 * channelName is "#name" (a thread's with its channel's), or the id said as
 * one: "<what>（ID …）".
 */
export function channelName(id, what = 'チャンネル') {
	const c = names.channels[id];
	if (!c) return `${what}（ID ${id}）`;
	const parent = c.parent_id && names.channels[c.parent_id];
	return parent ? `#${parent.name} › ${c.name}` : '#' + c.name;
}

/** userName is a user's name in guild (their nickname there), else their own, else the id said as one. */
export function userName(id, guild = '') {
	if (id === 'admin') return '管理ページ';
	const u = names.users[id];
	if (!u) return `ユーザー（ID ${id}）`;
	return u[guild] || u[''] || Object.values(u)[0];
}

/** knownChannels are the channels and threads with a name, by server and name. */
export function knownChannels() {
	return Object.entries(names.channels)
		.map(([id, c]) => ({ id, guild_id: c.guild_id, parent_id: c.parent_id || '', name: channelName(id) }))
		.sort((a, b) => guildName(a.guild_id).localeCompare(guildName(b.guild_id), 'ja') || a.name.localeCompare(b.name, 'ja'));
}

/**
 * channelGroups are the named channels and threads as <optgroup>s, one per
 * server: each option's value is the channel's id, its data-guild the
 * server's.
 */
export function channelGroups() {
	const byGuild = new Map();
	for (const c of knownChannels()) {
		if (!byGuild.has(c.guild_id)) byGuild.set(c.guild_id, []);
		byGuild.get(c.guild_id).push(c);
	}
	return [...byGuild].map(([guild, cs]) => el('optgroup', { label: guildName(guild) },
		cs.map((c) => el('option', { value: c.id, dataset: { guild } }, c.name))));
}

/** members are the users with a name in guild, by name. */
export function members(guild) {
	return Object.entries(names.users)
		.filter(([, u]) => guild in u)
		.map(([id, u]) => ({ id, name: u[guild] }))
		.sort((a, b) => a.name.localeCompare(b.name, 'ja'));
}

/**
 * showFieldError puts message under field (its error element is
 * "<field id>-error") and marks the field invalid; '' clears both.
 */
export function showFieldError(field, message) {
	const box = $(field.id + '-error');
	field.setAttribute('aria-invalid', message ? 'true' : 'false');
	if (!box) return;
	box.textContent = message;
	box.hidden = !message;
}

/** fieldMessage is an API refusal's text without the field's key before it. */
export function fieldMessage(err) {
	const msg = (err && err.message) || String(err);
	return err && err.field && msg.startsWith(err.field + ': ') ? msg.slice(err.field.length + 2) : msg;
}

/** spaceName says whose memory a space key ("guild:<id>", "dm:<id>", "web") is. */
export function spaceName(key) {
	if (!key) return '';
	if (key === 'web') return '管理ページ';
	const [kind, id] = key.split(':');
	if (kind === 'guild') return names.guilds[id] || guildName(id);
	if (kind === 'dm') return 'DM ' + userName(id);
	return key;
}

/** spaceLabel shows which community a row belongs to, when the row says. */
export function spaceLabel(row) {
	const s = row && row.space;
	if (!s) return null;
	const name = typeof s === 'object' ? (s.name || s.id || s.key) : spaceName(s);
	return el('span', { class: 'space', title: 'スペース: ' + (typeof s === 'object' ? s.key : s) }, '［' + name + '］');
}

/**
 * spacePicker fills select with every space (GET /api/spaces) and selects
 * want when it is one of them, else the default space; it returns the key
 * selected.
 */
export async function spacePicker(select, want) {
	const [res] = await Promise.all([get('/api/spaces'), knowNames()]);
	const list = (res && res.spaces) || [];
	select.replaceChildren(...list.map((s) => el('option', { value: s.key },
		`${spaceName(s.key)}（ノート ${s.notes}・会話 ${s.sessions}）`)));
	const pick = list.some((s) => s.key === want) ? want : (res && res.default) || 'web';
	if (!list.some((s) => s.key === pick)) select.append(el('option', { value: pick }, spaceName(pick)));
	select.value = pick;
	return pick;
}

/** empty replaces a list's content with a note saying there is nothing. */
export function empty(list, text) {
	list.replaceChildren(el(list.tagName === 'TBODY' ? 'tr' : 'li', { class: 'empty' },
		list.tagName === 'TBODY' ? el('td', { colSpan: 9 }, text) : text));
}

async function showStatus() {
	const box = $('status');
	if (!box) return;
	let st;
	try {
		st = await get('/api/status');
	} catch {
		return; // the banner is a courtesy; the screen itself reports its own errors
	}
	// Failing checks first, then degraded parts (yorozu works around them).
	const checks = (st && st.checks) || [];
	const bad = checks.filter((c) => !c.ok).concat(checks.filter((c) => c.ok && c.degraded));
	if (!bad.length) return;
	const title = bad.some((c) => !c.ok) ? '一部の機能が使えません：' : '注意があります（動作は続けています）：';
	box.replaceChildren(el('strong', {}, title),
		el('ul', {}, bad.map((c) => el('li', { class: c.ok ? 'degraded' : 'failing' },
			(c.ok ? '⚠️ ' : '❌ ') + c.name + (c.detail ? ' — ' + c.detail : '')))));
	box.hidden = false;
}

function wireLogout() {
	const b = $('logout');
	if (!b) return;
	b.addEventListener('click', async () => {
		try {
			await request('POST', '/api/logout');
		} catch (err) {
			fail(err);
			return;
		}
		sessionStorage.clear();
		location.assign('/login');
	});
}

// wireMenu opens and closes the screens' menu, a button on narrow screens.
function wireMenu() {
	const b = $('menu');
	if (!b) return;
	b.addEventListener('click', () => {
		const open = b.closest('.top').classList.toggle('open');
		b.setAttribute('aria-expanded', String(open));
	});
}

/** start runs on every screen but the login: the status banner, the menu and logout. */
export function start() {
	wireLogout();
	wireMenu();
	// After the screen's own first requests: the banner never delays them.
	setTimeout(showStatus, 0);
}
