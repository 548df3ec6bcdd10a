// The notes screen: one tab per section, pages edited in place with a
// Markdown preview, reordered by dragging (mouse, touch) or from the
// keyboard, and linked to the chat that was open last.
import { get, request } from './api.js';
import { render } from './markdown.js';
import { $, armed, el, empty, fail, spaceLabel, spacePicker, start, toast, when } from './ui.js';

const spaceKey = 'yorozu.notes.space';

const state = {
	space: new URLSearchParams(location.search).get('space') || localStorage.getItem(spaceKey), // whose notes are shown
	pages: [], // every page of the space, in position order
	tab: null, // the section shown
	chat: localStorage.getItem('yorozu.session'), // the chat to link pages to
	linked: new Set(),
	grab: null, // keyboard move in progress: {id, section, index}
	editing: new Set(), // page ids with an open editor (kept across re-renders)
	dragging: false, // the mouse holds a page
	redraw: false, // a draw waits for the drop
};

const noSection = '（セクションなし）';
const label = (section) => section || noSection;

function sections() {
	const seen = [];
	for (const p of state.pages) if (!seen.includes(p.section || '')) seen.push(p.section || '');
	if (state.tab != null && !seen.includes(state.tab)) seen.push(state.tab);
	return seen;
}

function say(text) {
	$('live').textContent = text;
}

// ---- loading ----

async function load() {
	const res = await get('/api/notes?space=' + encodeURIComponent(state.space || ''));
	const pages = Array.isArray(res) ? res : (res && res.pages) || [];
	state.pages = pages.map((p) => ({ ...p, section: p.section || '' }));
	const secs = sections();
	if (state.tab == null || (!secs.includes(state.tab) && !state.pages.length)) {
		const fromHash = decodeURIComponent(location.hash.slice(1));
		state.tab = secs.includes(fromHash) ? fromHash : secs[0] ?? '';
	}
	draw();
}

async function loadLinked() {
	if (!state.chat) {
		$('chat-link-hint').textContent = ' チャット画面で会話を開くと、ここからページをその会話に紐付けられます。';
		return;
	}
	try {
		const res = await get(`/chat/sessions/${encodeURIComponent(state.chat)}/notes`);
		state.linked = new Set((res && res.page_ids) || []);
	} catch (err) {
		if (err.status === 404) {
			state.chat = null;
			localStorage.removeItem('yorozu.session');
			return;
		}
		throw err;
	}
	$('chat-link-hint').replaceChildren(' 「会話に紐付け」は ', el('a', { href: '/?session=' + encodeURIComponent(state.chat) }, '最後に開いた会話'), ' の文脈にページの全文を入れます。');
	draw();
}

// ---- drawing ----

function draw() {
	// A redraw while the mouse drags would take the page from under it:
	// it waits for the drop.
	if (state.dragging) {
		state.redraw = true;
		return;
	}
	drawTabs();
	drawPages();
}

function drawTabs() {
	const secs = sections();
	$('tabs').replaceChildren(...secs.map((s) => el('button', {
		type: 'button', role: 'tab', id: 'tab-' + encodeURIComponent(s),
		'aria-selected': s === state.tab ? 'true' : 'false', 'aria-controls': 'tab-panel',
		tabIndex: s === state.tab ? 0 : -1,
		dataset: { section: s },
		onclick: () => showTab(s),
		onkeydown: tabKeys,
	}, label(s), ' ', el('span', { class: 'badge' }, String(state.pages.filter((p) => p.section === s).length)))));
	$('tab-panel').setAttribute('aria-labelledby', 'tab-' + encodeURIComponent(state.tab));
}

function tabKeys(ev) {
	const secs = sections();
	const i = secs.indexOf(ev.currentTarget.dataset.section);
	let next = null;
	if (ev.key === 'ArrowRight') next = secs[(i + 1) % secs.length];
	else if (ev.key === 'ArrowLeft') next = secs[(i - 1 + secs.length) % secs.length];
	else if (ev.key === 'Home') next = secs[0];
	else if (ev.key === 'End') next = secs[secs.length - 1];
	if (next == null) return;
	ev.preventDefault();
	showTab(next);
	document.getElementById('tab-' + encodeURIComponent(next))?.focus();
}

function showTab(section) {
	state.tab = section;
	history.replaceState(null, '', '#' + encodeURIComponent(section));
	draw();
}

function drawPages() {
	const list = $('pages');
	const shown = state.pages.filter((p) => p.section === state.tab);
	if (!shown.length && !list.querySelector('.new')) {
		empty(list, state.pages.length ? 'このセクションにページはありません。' : 'ページはまだありません。「＋ ページを追加」から作れます。');
		return;
	}
	// A redraw keeps the keyboard where it was: a focused handle is focused
	// again on the page's new node. A page being created stays where it is,
	// and open editors are kept with what was typed in them.
	const active = document.activeElement;
	const held = active && active.classList.contains('handle') ? active.closest('.page[data-id]')?.dataset.id : null;
	const fresh = list.querySelector('li.new');
	const editors = new Map([...list.querySelectorAll('li.page[data-id]')]
		.filter((li) => state.editing.has(Number(li.dataset.id)) && li.querySelector('form.editor'))
		.map((li) => [li.dataset.id, li]));
	for (const c of [...list.children]) if (c !== fresh) c.remove();
	list.append(...shown.map((p) => editors.get(String(p.id)) || pageItem(p)));
	if (held && !active.isConnected) focusHandle(held);
	else if (active && active !== document.activeElement && list.contains(active)) active.focus();
}

function pageItem(p) {
	const linked = state.linked.has(p.id);
	const li = el('li', { class: 'page' + (state.grab && state.grab.id === p.id ? ' grabbed' : ''), dataset: { id: p.id } });
	const handle = el('button', {
		type: 'button', class: 'handle', 'aria-label': `「${p.title || '無題'}」を並べ替え`,
		'aria-pressed': state.grab && state.grab.id === p.id ? 'true' : 'false',
		onkeydown: (ev) => handleKeys(ev, p),
		onpointerdown: (ev) => dragStart(ev, p, li),
	}, '⠿');
	const linkBtn = state.chat ? el('button', {
		type: 'button', class: 'link', 'aria-pressed': linked ? 'true' : 'false',
		onclick: () => toggleLink(p.id),
	}, linked ? '会話から外す' : '会話に紐付け') : null;
	const del = armed(el('button', { type: 'button', class: 'link danger' }, '削除'), '本当に削除', () => remove(p));
	const past = el('button', { type: 'button', class: 'link', 'aria-expanded': 'false', onclick: (ev) => revisions(li, p, ev.currentTarget) }, '履歴');
	li.append(el('div', { class: 'page-head' },
		handle, el('h2', {}, p.title || '（無題）'), spaceLabel(p),
		linked ? el('span', { class: 'linked' }, '会話に紐付け中') : null,
		el('button', { type: 'button', class: 'link', onclick: () => edit(p) }, '編集'),
		past, linkBtn, del));
	if (state.editing.has(p.id)) li.append(editor(p, li));
	else {
		const body = el('div', { class: 'md' });
		render(body, p.content || '');
		li.append(body);
	}
	return li;
}

// ---- editing ----

function edit(p) {
	state.editing.add(p.id);
	drawPages();
	document.querySelector(`.page[data-id="${CSS.escape(String(p.id))}"] textarea`)?.focus();
}

function editor(p, li) {
	const isNew = p.id == null;
	const title = el('input', { value: p.title || '', 'aria-label': 'タイトル', placeholder: 'タイトル', required: true });
	const section = el('input', { value: p.section || '', 'aria-label': 'セクション', placeholder: 'セクション（任意）', list: 'section-names' });
	const text = el('textarea', { 'aria-label': '本文（Markdown）', placeholder: '本文（Markdown）' });
	text.value = p.content || '';
	const preview = el('div', { class: 'preview md', 'aria-label': 'プレビュー' });
	let t = 0;
	const update = () => render(preview, text.value);
	text.addEventListener('input', () => {
		clearTimeout(t);
		t = setTimeout(update, 150);
	});
	update();
	const close = () => {
		if (isNew) li.remove();
		state.editing.delete(p.id);
		drawPages();
	};
	const save = async (ev) => {
		ev.preventDefault();
		const body = { title: title.value.trim(), content: text.value, section: section.value.trim() };
		if (isNew) body.space = state.space;
		if (!body.title) {
			toast('タイトルを入れてください。');
			title.focus();
			return;
		}
		try {
			if (isNew) await request('POST', '/api/notes', body);
			else await request('PATCH', `/api/notes/${encodeURIComponent(p.id)}`, body);
		} catch (err) {
			fail(err);
			return;
		}
		if (isNew) li.remove();
		state.editing.delete(p.id);
		state.tab = body.section;
		history.replaceState(null, '', '#' + encodeURIComponent(body.section));
		await load().catch(fail);
	};
	const form = el('form', { class: 'editor', onsubmit: save },
		el('div', { class: 'fields' }, title, section,
			el('datalist', { id: 'section-names' }, sections().filter(Boolean).map((s) => el('option', { value: s })))),
		text, preview,
		el('div', { class: 'actions' },
			el('button', { type: 'submit', class: 'primary' }, isNew ? '作成' : '保存'),
			el('button', { type: 'button', onclick: close }, 'キャンセル')));
	form.addEventListener('keydown', (ev) => {
		if (ev.key === 'Escape') close();
		if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) form.requestSubmit();
	});
	return form;
}

function newPage() {
	const list = $('pages');
	list.querySelector('li.new')?.remove();
	list.querySelector('li.empty')?.remove();
	const p = { id: null, title: '', content: '', section: state.tab || '' };
	const li = el('li', { class: 'page new' });
	li.append(editor(p, li));
	list.prepend(li);
	li.querySelector('input').focus();
}

async function remove(p) {
	try {
		await request('DELETE', `/api/notes/${encodeURIComponent(p.id)}`);
		await load();
	} catch (err) {
		fail(err);
	}
}

// ---- earlier versions ----

const actions = { replace: '書き換え', delete: '削除', restore: '以前の版に戻した' };

// revisions shows (or hides) the kept earlier versions of p under its
// item: who changed it and when, each with a button that puts it back.
async function revisions(li, p, button) {
	const open = li.querySelector('.revisions');
	if (open) {
		open.remove();
		button.setAttribute('aria-expanded', 'false');
		return;
	}
	const box = el('section', { class: 'revisions panel', 'aria-label': `「${p.title}」の以前の版` }, el('p', { class: 'muted small' }, '読み込み中…'));
	li.append(box);
	button.setAttribute('aria-expanded', 'true');
	let revs;
	try {
		revs = (await get(`/api/notes/${encodeURIComponent(p.id)}/revisions`)) || [];
	} catch (err) {
		box.remove();
		fail(err);
		return;
	}
	if (!revs.length) {
		box.replaceChildren(el('p', { class: 'muted small' }, '以前の版はありません。'));
		return;
	}
	box.replaceChildren(el('h3', {}, '以前の版（新しい順、ページごとに最新 20 件）'), el('ol', { class: 'revision-list' }, revs.map((r) => el('li', { class: 'revision' },
		el('div', { class: 'row' },
			el('span', { class: 'grow small' }, `${when(r.created_at)}・${r.changed_by || '不明'} が${actions[r.action] || r.action}`),
			el('button', { type: 'button', class: 'link', onclick: () => restore(p, r) }, 'この版に戻す')),
		el('pre', { class: 'view small' }, r.content || '（空）')))));
}

async function restore(p, r) {
	try {
		await request('POST', `/api/notes/${encodeURIComponent(p.id)}/revisions/${encodeURIComponent(r.id)}/restore`);
	} catch (err) {
		fail(err);
		return;
	}
	toast(`「${r.title}」を ${when(r.created_at)} の版に戻しました。`, 'info');
	await load().catch(fail);
}

async function toggleLink(id) {
	const next = new Set(state.linked);
	if (next.has(id)) next.delete(id);
	else next.add(id);
	try {
		await request('PUT', `/chat/sessions/${encodeURIComponent(state.chat)}/notes`, { page_ids: [...next] });
		state.linked = next;
		draw();
	} catch (err) {
		fail(err);
	}
}

// ---- sections ----

function renameSection() {
	const from = state.tab;
	const bar = $('tabs');
	if (bar.querySelector('form')) return;
	const input = el('input', { value: from, 'aria-label': `「${label(from)}」の新しい名前` });
	const form = el('form', { class: 'row', onsubmit: async (ev) => {
		ev.preventDefault();
		const to = input.value.trim();
		if (to === from) {
			drawTabs();
			return;
		}
		try {
			await request('POST', '/api/notes/sections/rename', { from, to, space: state.space });
			state.tab = to;
			await load();
		} catch (err) {
			fail(err);
		}
	} }, input, el('button', { type: 'submit' }, '変更'), el('button', { type: 'button', onclick: drawTabs }, 'やめる'));
	bar.append(form);
	input.select();
}

// ---- reordering ----

// move puts page id into section at index (among that section's other
// pages) and sends the whole new order; the server keeps it as is.
async function move(id, section, index) {
	const page = state.pages.find((p) => p.id === id);
	if (!page) return;
	const rest = state.pages.filter((p) => p.id !== id);
	const at = rest.reduce((acc, p, i) => (p.section === section ? [...acc, i] : acc), []);
	let pos = rest.length;
	if (at.length) pos = index >= at.length ? at[at.length - 1] + 1 : at[Math.max(0, index)];
	rest.splice(pos, 0, { ...page, section });
	const before = state.pages;
	state.pages = rest;
	draw();
	// Busy until the stored order is back on the screen.
	const list = $('pages');
	list.setAttribute('aria-busy', 'true');
	try {
		await request('POST', '/api/notes/reorder', { page_id: id, section, order: rest.map((p) => p.id), space: state.space });
		await load();
	} catch (err) {
		state.pages = before;
		draw();
		fail(err);
	} finally {
		list.removeAttribute('aria-busy');
	}
}

function indexIn(section, id) {
	return state.pages.filter((p) => p.section === section).findIndex((p) => p.id === id);
}

function focusHandle(id) {
	document.querySelector(`.page[data-id="${CSS.escape(String(id))}"] .handle`)?.focus();
}

// Keyboard: Space grabs, arrows move (↑↓ within the tab, ←→ to the
// neighbouring tab), Space drops, Escape puts it back.
function handleKeys(ev, p) {
	const g = state.grab;
	if (ev.key === ' ' || ev.key === 'Enter') {
		ev.preventDefault();
		if (!g) {
			state.grab = { id: p.id, section: p.section, index: indexIn(p.section, p.id), from: state.pages };
			say(`「${p.title}」を掴みました。矢印キーで動かし、Space で置きます。`);
			drawPages();
			focusHandle(p.id);
			return;
		}
		state.grab = null;
		const changed = g.section !== p.section || g.index !== indexIn(p.section, p.id) || g.moved;
		say(`「${p.title}」を${label(g.section)}の ${g.index + 1} 番目に置きました。`);
		// The local order already shows the move; restore it and send it.
		state.pages = g.from;
		if (changed) move(p.id, g.section, g.index).then(() => focusHandle(p.id));
		else draw();
		return;
	}
	if (!g || g.id !== p.id) return;
	if (ev.key === 'Escape') {
		ev.preventDefault();
		state.pages = g.from;
		state.grab = null;
		state.tab = g.from.find((x) => x.id === p.id).section;
		say('並べ替えを取り消しました。');
		draw();
		focusHandle(p.id);
		return;
	}
	const secs = sections();
	let { section, index } = g;
	const count = state.pages.filter((x) => x.section === section && x.id !== p.id).length;
	if (ev.key === 'ArrowUp') index = Math.max(0, index - 1);
	else if (ev.key === 'ArrowDown') index = Math.min(count, index + 1);
	else if (ev.key === 'ArrowLeft' || ev.key === 'ArrowRight') {
		const i = secs.indexOf(section) + (ev.key === 'ArrowLeft' ? -1 : 1);
		if (i < 0 || i >= secs.length) return;
		section = secs[i];
		index = state.pages.filter((x) => x.section === section && x.id !== p.id).length;
	} else return;
	ev.preventDefault();
	// Show the move locally; nothing is sent until the drop.
	const rest = state.pages.filter((x) => x.id !== p.id);
	const at = rest.reduce((acc, x, i) => (x.section === section ? [...acc, i] : acc), []);
	let pos = rest.length;
	if (at.length) pos = index >= at.length ? at[at.length - 1] + 1 : at[index];
	rest.splice(pos, 0, { ...state.pages.find((x) => x.id === p.id), section });
	state.pages = rest;
	state.grab = { ...g, section, index, moved: true };
	state.tab = section;
	say(`${label(section)}の ${index + 1} 番目`);
	draw();
	focusHandle(p.id);
}

// Pointer: drag the handle onto another page (above or below its middle)
// or onto a tab (the end of that section).
function dragStart(ev, p, li) {
	if (ev.button !== 0 || state.grab) return;
	ev.preventDefault();
	const handle = ev.currentTarget;
	handle.setPointerCapture(ev.pointerId);
	state.dragging = true;
	const x0 = ev.clientX, y0 = ev.clientY;
	let dragging = false;
	let target = null; // {section, index, mark: element, cls}
	const clear = () => {
		document.querySelectorAll('.drop-before, .drop-after, .drop').forEach((n) => n.classList.remove('drop-before', 'drop-after', 'drop'));
	};
	const onMove = (e) => {
		if (!dragging && Math.hypot(e.clientX - x0, e.clientY - y0) < 4) return;
		dragging = true;
		li.classList.add('dragging');
		clear();
		target = null;
		const under = document.elementFromPoint(e.clientX, e.clientY);
		const tab = under && under.closest('[role=tab]');
		const over = under && under.closest('.page[data-id]');
		if (tab) {
			const section = tab.dataset.section;
			target = { section, index: Infinity };
			tab.classList.add('drop');
		} else if (over && over !== li) {
			const id = state.pages.find((x) => String(x.id) === over.dataset.id)?.id;
			const r = over.getBoundingClientRect();
			const after = e.clientY > r.top + r.height / 2;
			const others = state.pages.filter((x) => x.section === state.tab && x.id !== p.id);
			const i = others.findIndex((x) => x.id === id);
			target = { section: state.tab, index: i + (after ? 1 : 0) };
			over.classList.add(after ? 'drop-after' : 'drop-before');
		}
	};
	const onUp = () => {
		handle.removeEventListener('pointermove', onMove);
		handle.removeEventListener('pointerup', onUp);
		handle.removeEventListener('pointercancel', onUp);
		li.classList.remove('dragging');
		clear();
		state.dragging = false;
		if (state.redraw) {
			state.redraw = false;
			draw();
		}
		if (!dragging) {
			focusHandle(p.id);
			return;
		}
		if (target) {
			const section = target.section;
			const page = state.pages.find((x) => x.id === p.id);
			say(`「${p.title}」を${label(section)}へ動かしました。`);
			const idx = target.index === Infinity ? state.pages.filter((x) => x.section === section && x.id !== p.id).length : target.index;
			if (page.section !== section || indexIn(section, p.id) !== idx) move(p.id, section, idx);
		}
	};
	handle.addEventListener('pointermove', onMove);
	handle.addEventListener('pointerup', onUp);
	handle.addEventListener('pointercancel', onUp);
}

async function main() {
	start();
	$('new-note').addEventListener('click', newPage);
	$('rename-section').addEventListener('click', renameSection);
	$('space').addEventListener('change', (ev) => {
		state.space = ev.target.value;
		localStorage.setItem(spaceKey, state.space);
		history.replaceState(null, '', '?space=' + encodeURIComponent(state.space) + location.hash);
		state.tab = null;
		state.editing.clear();
		load().catch(fail);
	});
	try {
		state.space = await spacePicker($('space'), state.space);
		await load();
	} catch (err) {
		fail(err);
	}
	loadLinked().catch(fail);
}

main();
