// The chat screen: sessions, messages, the streamed answer with its tool
// activity, model choice, linked notes and fetched documents.
import { get, optional, request, stream } from './api.js';
import { render } from './markdown.js';
import { $, armed, bytes, el, empty, fail, knowNames, spaceLabel, spaceName, spacePicker, start, toast, when } from './ui.js';

const spaceKey = 'yorozu.chat.space';

const state = {
	sessions: [],
	current: null, // session id, null for a new conversation
	notes: [], // every note page of the conversation's space, for the picker
	notesSpace: null, // the space state.notes are of
	linked: new Set(), // page ids linked to the current session (or to the next new one)
	busy: null, // the turn shown as it runs: { ctl (aborting it only stops watching), session }
	composing: false, // an IME composition is under way in the input
	images: [], // files to send with the next message: { file, url } (url: a picture's preview; none for a document)
	// Messages sent while an answer is being written, oldest first: each is
	// sent once the answer before it has ended. { text, images, node }
	queue: [],
	space: localStorage.getItem(spaceKey), // the space a new conversation joins
};

// Limits the server applies too (vision package); checked here first so
// a person learns at once.
const maxImages = 4;
const maxImageBytes = 10 << 20;
const imageTypes = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'];
// Documents the chat handler reads (chat package): by extension, as it does;
// at most 10 MB in all, 4 at a time.
const documentExts = ['txt', 'text', 'md', 'markdown', 'csv', 'json', 'html', 'htm', 'pdf'];
const documentTypes = ['text/plain', 'text/markdown', 'text/csv', 'text/html', 'application/json', 'application/pdf'];
const maxDocuments = 4;
const maxDocumentBytes = 10 << 20;

function isDocument(f) {
	const ext = (f.name || '').toLowerCase().split('.').pop();
	return documentExts.includes(ext) || documentTypes.includes(f.type);
}

// preview is what shows a file waiting to be sent, or sent: a picture's
// thumbnail, or a document's name.
function preview(img) {
	if (!img.url) return el('span', { class: 'file-chip', title: '文書' }, img.file.name);
	return el('img', { src: img.url, alt: img.file.name || '貼り付けた画像', class: 'thumb' });
}

// chatSpace is the space of the conversation shown: its own, or the one
// picked for a new conversation.
function chatSpace() {
	const s = currentSession();
	return s ? s.space : state.space;
}

// showSpace puts the conversation's space in the picker, which only a new
// conversation may change.
function showSpace() {
	const sel = $('space');
	const key = chatSpace();
	if (key && ![...sel.options].some((o) => o.value === key)) sel.append(el('option', { value: key }, spaceName(key)));
	if (key) sel.value = key;
	sel.disabled = currentSession() != null;
}

const sessionKey = 'yorozu.session';
const modelKey = 'yorozu.model';

function currentSession() {
	return state.sessions.find((s) => String(s.id) === String(state.current)) || null;
}

function readOnly() {
	const s = currentSession();
	return !!s && s.source === 'discord';
}

// ---- sessions ----

function renderSessions() {
	const list = $('session-list');
	if (!state.sessions.length) {
		empty(list, 'まだ会話はありません。');
		return;
	}
	list.replaceChildren(...state.sessions.map((s) => el('li', {},
		el('button', {
			type: 'button',
			'aria-current': String(s.id) === String(state.current) ? 'true' : 'false',
			dataset: { id: s.id },
			onclick: () => select(s.id),
		},
		el('span', { class: 'title' }, s.title || '（無題）'),
		el('span', { class: 'meta' },
			s.source === 'discord' ? el('span', { class: 'badge' }, 'Discord・閲覧のみ') : null,
			s.live ? el('span', { class: 'badge live' }, '応答中') : null,
			spaceLabel(s), el('time', { datetime: s.updated_at }, when(s.updated_at)))))));
}

async function loadSessions() {
	const [sessions] = await Promise.all([get('/chat/sessions'), knowNames()]);
	state.sessions = sessions || [];
	renderSessions();
}

// sessionButtons shows the actions the conversation shown allows.
function sessionButtons() {
	const s = currentSession();
	const ro = readOnly();
	$('composer').hidden = ro;
	$('readonly').hidden = !ro;
	$('export').hidden = !s;
	$('delete-session').hidden = !s || ro;
	$('rename').hidden = !s || ro;
	$('model').disabled = ro;
}

async function select(id, focus) {
	// Watching an answer stops; the answer itself goes on on the server, and
	// coming back to its conversation shows it again.
	if (state.busy) {
		state.busy.ctl.abort();
		state.busy = null;
		busyButtons();
	}
	unqueue();
	// Ids read back from the address or localStorage are strings; the API
	// wants numbers.
	if (id != null) id = Number(id);
	state.current = id;
	if (id == null) {
		localStorage.removeItem(sessionKey);
		history.replaceState(null, '', location.pathname);
	} else {
		localStorage.setItem(sessionKey, id);
		history.replaceState(null, '', '?session=' + encodeURIComponent(id));
	}
	renderSessions();
	const s = currentSession();
	$('conv-title').textContent = s ? (s.title || '（無題）') : '新しい会話';
	sessionButtons();
	if (s && s.model) setModel(s.model);
	showSpace();
	if (state.notesSpace !== chatSpace()) loadNotes().catch(fail);
	$('messages').replaceChildren();
	$('docs').hidden = true;
	if (id == null) {
		state.linked = new Set();
		renderNotePicker();
		return;
	}
	const [shown] = await Promise.all([
		loadMessages(id).catch(fail),
		loadLinkedNotes(id).catch(fail),
		loadDocs(id).catch(() => { $('docs').hidden = true; }),
	]);
	if (focus != null) {
		const hit = $('messages').querySelector(`.msg[data-id="${CSS.escape(String(focus))}"]`);
		if (hit) {
			hit.classList.add('hit');
			hit.scrollIntoView({ block: 'center' });
		}
	} else scrollDown(); // the documents panel may have pushed the messages up: show the latest
	// An answer still being written there: show it and follow it.
	if (shown && String(state.current) === String(id) && !readOnly()) attach(id).catch(fail);
}

// ---- messages ----

// copyText puts text on the clipboard; over plain HTTP (no clipboard API)
// through a hidden text area.
async function copyText(text, button) {
	try {
		if (navigator.clipboard && window.isSecureContext) await navigator.clipboard.writeText(text);
		else {
			const ta = el('textarea', { class: 'skip', readonly: true }, text);
			document.body.append(ta);
			ta.select();
			document.execCommand('copy');
			ta.remove();
		}
		if (button) {
			const label = button.textContent;
			button.textContent = 'コピーしました';
			setTimeout(() => { button.textContent = label; }, 1500);
		}
	} catch (err) {
		fail(new Error('コピーできませんでした。'));
	}
}

// codeCopy gives each code block of an answer its own copy button.
function codeCopy(body) {
	for (const pre of body.querySelectorAll('pre')) {
		if (pre.parentElement.classList.contains('code-wrap')) continue;
		const wrap = el('div', { class: 'code-wrap' });
		pre.replaceWith(wrap);
		const b = el('button', { type: 'button', class: 'copy-code small', 'aria-label': 'コードをコピー' }, 'コピー');
		b.addEventListener('click', () => copyText((pre.querySelector('code') || pre).textContent, b));
		wrap.append(b, pre);
	}
}

function bubble(role, extra = {}) {
	const body = el('div', { class: 'bubble' + (role === 'assistant' ? ' md' : '') });
	const tools = el('ul', { class: 'tools', 'aria-label': 'ツールの実行', hidden: true });
	const sources = el('div', { class: 'sources', hidden: true });
	const actions = el('div', { class: 'msg-actions' });
	const who = role === 'user' ? (extra.author || 'あなた') : 'よろず';
	const node = el('div', { class: `msg ${role}${extra.archived ? ' archived' : ''}`, dataset: extra.id ? { id: extra.id } : {} },
		el('div', { class: 'who' }, who, extra.archived ? '（要約済み）' : '', extra.time ? ' ・ ' + when(extra.time) : ''),
		role === 'assistant' ? tools : null, body, role === 'assistant' ? sources : null, actions);
	return { node, body, tools, sources, actions };
}

// stoppedMark is shown under an answer a person stopped (chat.StoppedMark);
// it is not part of the answer's text, so コピー and exports leave it out.
const stoppedMark = '（停止しました）';

function showStopped(b, mark = stoppedMark) {
	b.node.classList.add('stopped');
	if (!b.node.querySelector('.stopped-mark')) b.body.after(el('p', { class: 'stopped-mark muted small' }, mark));
}

function showSources(b, list) {
	b.sources.replaceChildren('出典: ', ...(list || []).map((s) => el('a', {
		href: /^https?:/i.test(s.url) ? s.url : '#', target: '_blank', rel: 'noopener noreferrer',
	}, s.title || s.url)));
	b.sources.hidden = !(list && list.length);
}

function showTools(b, list) {
	b.tools.replaceChildren(...list.map(toolItem));
	b.tools.hidden = !list.length;
}

// messageActions puts copy (and, on the page's own conversations, 編集 or
// 再生成, and the versions' switch) under a stored message.
function messageActions(b, m, set) {
	const copy = el('button', { type: 'button', class: 'link small' }, 'コピー');
	copy.addEventListener('click', () => copyText(m.content || '', copy));
	const parts = [copy];
	if (!readOnly() && !m.archived && m.id) {
		if (m.role === 'user') parts.push(el('button', { type: 'button', class: 'link small', onclick: () => edit(b, m) }, '編集'));
		if (m.role === 'assistant') parts.push(el('button', { type: 'button', class: 'link small', onclick: () => regenerate(b, m) }, '再生成'));
	}
	if (set) parts.push(branchControl(set.anchor, set.step, m.role === 'user' ? '質問' : '答え'));
	b.actions.replaceChildren(...parts);
}

// branchControl switches between versions from one point on: ‹ 2/3 ›,
// what naming what they are versions of (質問, 答え). step.targets[n-1] is
// the version its n-th step shows.
function branchControl(anchor, step, what) {
	const go = (pos) => switchBranch(anchor, step.targets[pos - 1]);
	return el('span', { class: 'alt', role: 'group', 'aria-label': `${what}の版 ${step.position}/${step.count}` },
		el('button', { type: 'button', class: 'link small', 'aria-label': `前の${what}`, disabled: step.position <= 1, onclick: () => go(step.position - 1) }, '‹'),
		el('span', { class: 'alt-pos' }, `${step.position}/${step.count}`),
		el('button', { type: 'button', class: 'link small', 'aria-label': `次の${what}`, disabled: step.position >= step.count, onclick: () => go(step.position + 1) }, '›'));
}

// steps turns a point's versions as the server read them into the switch
// of a question (its edits) and that of its answer (its regenerations);
// a server without that reading gives one switch of every version.
function steps(set) {
	const all = { position: set.position, count: set.count, targets: Array.from({ length: set.count }, (_, i) => i + 1) };
	if (!set.question) return set.kind === 'edit' ? { question: all } : { answer: all };
	return {
		question: set.question.count > 1 ? set.question : null,
		answer: set.answer && set.answer.count > 1 ? set.answer : null,
	};
}

async function switchBranch(anchor, position) {
	if (state.busy || state.current == null) return;
	const id = state.current;
	try {
		await request('POST', `/chat/sessions/${encodeURIComponent(id)}/branches`, { anchor_id: anchor, position });
		await loadMessages(id);
	} catch (err) {
		fail(err);
	}
}

// dropFrom removes node and every message after it: a new version of the
// conversation is about to be written from there.
function dropFrom(node) {
	while (node.nextElementSibling) node.nextElementSibling.remove();
	node.remove();
}

// regenerate writes answer m again: its question is asked again, and what
// was there stays reachable as the previous version.
function regenerate(b, m) {
	if (state.busy) return;
	const q = b.node.previousElementSibling;
	if (!q || !q.classList.contains('user') || !q.msg) return;
	dropFrom(q);
	send(q.msg.content || '', { regenerate: m.id });
}

// edit turns user message m into a field; sending it starts a new version
// from there, the old one staying reachable.
function edit(b, m) {
	if (state.busy) return;
	const input = el('textarea', { rows: 3, 'aria-label': 'メッセージを編集' }, m.content || '');
	const box = el('form', { class: 'msg-edit' }, input,
		el('div', { class: 'row' },
			el('button', { type: 'submit', class: 'primary small' }, '送信'),
			el('button', { type: 'button', class: 'small', onclick: () => box.replaceWith(b.body) }, 'キャンセル')));
	box.addEventListener('submit', (ev) => {
		ev.preventDefault();
		const text = input.value.trim();
		if (!text || state.busy) return;
		dropFrom(b.node);
		send(text, { edit: m.id });
	});
	input.addEventListener('keydown', (ev) => {
		if (ev.key !== 'Enter' || ev.shiftKey || ev.isComposing || ev.keyCode === 229) return;
		ev.preventDefault();
		box.requestSubmit();
	});
	b.body.replaceWith(box);
	input.focus();
}

function showMessage(m, set) {
	const role = m.role === 'assistant' ? 'assistant' : 'user';
	// Discord users by their name; on the page's own conversations, the admin.
	const author = role === 'user' && readOnly() ? m.author_name : undefined;
	const b = bubble(role, { archived: m.archived || !!m.archived_at, time: m.created_at, author, id: m.id });
	if (role === 'assistant') {
		render(b.body, m.content || '');
		codeCopy(b.body);
		if (m.tools && m.tools.length) showTools(b, m.tools);
		if (m.sources && m.sources.length) showSources(b, m.sources);
		if (m.stopped) showStopped(b);
	} else b.body.textContent = m.content || '';
	if (m.images && m.images.length) b.body.append(imageList(m.images));
	b.node.msg = m;
	messageActions(b, m, set);
	$('messages').append(b.node);
	return b;
}

// imageList names the pictures kept with a message (the bytes are not kept).
function imageList(images) {
	return el('ul', { class: 'image-list' }, images.map((i) => el('li', {},
		'🖼 ', i.name,
		i.width ? `（${i.width}×${i.height}）` : '',
		i.skipped ? el('span', { class: 'muted' }, ' — 見ていません') : '')));
}

async function loadMessages(id) {
	const msgs = (await get(`/chat/sessions/${encodeURIComponent(id)}/messages`)) || [];
	if (String(state.current) !== String(id)) return false;
	$('messages').replaceChildren();
	if (!msgs.length) {
		$('messages').append(el('p', { class: 'empty' }, 'メッセージはまだありません。'));
	}
	// A question's own versions (edits) switch under the question, its
	// answer's (regenerations) under the answer.
	let answer = null;
	for (const m of msgs) {
		let set = null;
		if (m.branch) {
			const s = steps(m.branch);
			if (s.question) set = { anchor: m.branch.anchor_id, step: s.question };
			answer = s.answer ? { anchor: m.branch.anchor_id, step: s.answer } : null;
		}
		if (m.role === 'assistant' && answer) {
			set = answer;
			answer = null;
		}
		showMessage(m, set);
	}
	keepQueueLast();
	scrollDown();
	return true;
}

function scrollDown() {
	const box = $('messages');
	box.scrollTop = box.scrollHeight;
}

// toolItem is one line of the tool activity above an answer: a spinner
// while it runs, then ✓ (or ✗) with the start of its result.
function toolItem(t) {
	const running = t.status !== 'done';
	return el('li', { class: running ? 'running' : t.error ? 'failed' : 'done', dataset: { id: t.id } },
		el('span', { class: 'icon', 'aria-hidden': 'true' }, running ? el('span', { class: 'spin' }) : t.error ? '✗' : '✓'),
		el('span', { class: 'what' }, el('strong', {}, t.label || t.name), t.detail ? '　' + t.detail : '',
			running ? el('span', { class: 'skip' }, '（実行中）') : null),
		!running && t.result ? el('span', { class: 'result', title: t.result }, t.result) : null);
}

// ---- answers in flight ----

// answerView draws one turn's answer in bubble a as its events come; end is
// set once the turn said how it ended (done, error or stopped).
function answerView(a) {
	const tools = new Map();
	let frame = 0;
	const v = { answer: '', end: null };
	const draw = () => {
		frame = 0;
		render(a.body, v.answer, true);
		scrollDown();
	};
	const queued = $('queued');
	v.apply = (ev) => {
		switch (ev.type) {
		case 'queued': {
			const pos = typeof ev.value === 'object' && ev.value ? ev.value.position : ev.value;
			// position 1 is next; the turn being answered counts as 1, as on Discord.
			queued.textContent = `順番待ちです（${pos + 1} 番目）。`;
			queued.hidden = false;
			break;
		}
		case 'tool': {
			const t = Object.assign(tools.get(ev.value.id) || {}, ev.value);
			tools.set(t.id, t);
			showTools(a, [...tools.values()]);
			queued.hidden = true;
			break;
		}
		case 'notes_updated':
			toast('よろずがノートを更新しました。', 'info');
			loadNotes().catch(fail);
			break;
		case 'sources':
			showSources(a, ev.value);
			break;
		case 'chunk':
			queued.hidden = true;
			v.answer += ev.value;
			if (!frame) frame = requestAnimationFrame(draw);
			break;
		case 'done':
			v.end = 'done';
			a.node.title = doneSummary(ev.value);
			break;
		case 'stopped':
			v.end = 'stopped';
			showStopped(a, ev.value || stoppedMark);
			break;
		case 'error':
			v.end = 'error';
			a.node.classList.add('error');
			if (!v.answer) a.body.textContent = ev.value;
			toast(ev.value);
			break;
		}
	};
	// finish draws the answer as it ended, without the streaming fence fix.
	v.finish = () => {
		if (frame) cancelAnimationFrame(frame);
		frame = 0;
		queued.hidden = true;
		if (v.answer) {
			render(a.body, v.answer);
			codeCopy(a.body);
		} else if (v.end === 'done') a.body.textContent = '（応答が空でした）';
		// Tools that never reported "done" (a stopped turn) stop spinning.
		for (const t of tools.values()) t.status = 'done';
		if (tools.size) showTools(a, [...tools.values()]);
		scrollDown();
	};
	return v;
}

// follow goes on with the turn in flight in conversation id from event
// after (0: from its start), into view; without view it draws the turn's
// question and answer itself. It returns once the turn ended, the page
// left the conversation (signal) or no turn runs there.
async function follow(id, signal, view, after = 0) {
	for (let tries = 0; tries < 60 && !signal.aborted; tries++) {
		let got = false;
		try {
			await stream(`/chat/sessions/${encodeURIComponent(id)}/live`, undefined, (ev, eid) => {
				got = true;
				if (ev.type === 'live') {
					if (!view) {
						$('messages').querySelector('.empty')?.remove();
						const u = bubble('user');
						u.body.textContent = ev.value.message || '';
						const a = bubble('assistant');
						a.body.append(el('span', { class: 'muted' }, '…'));
						$('messages').append(u.node, a.node);
						view = answerView(a);
						scrollDown();
					}
					return;
				}
				if (eid) after = eid;
				view.apply(ev);
			}, signal, { 'Last-Event-ID': String(after) });
		} catch (err) {
			if (err.name === 'AbortError' || signal.aborted) return view;
			if (err.status) {
				fail(err);
				return view;
			}
			// The network went away: try again shortly from the last event.
			await new Promise((r) => setTimeout(r, 1000));
			continue;
		}
		if (!got || (view && view.end)) return view; // 204: nothing (more) runs
	}
	return view;
}

// attach follows conversation id's turn in flight, if any, and shows the
// kept history once it is done.
async function attach(id) {
	const ctl = new AbortController();
	state.busy = { ctl, session: id };
	busyButtons();
	try {
		const view = await follow(id, ctl.signal, null);
		if (view && !ctl.signal.aborted) {
			view.finish();
			await afterTurn(id); // still busy: see send
		}
	} finally {
		if (state.busy && state.busy.ctl === ctl) {
			state.busy = null;
			busyButtons();
		}
	}
	if (!ctl.signal.aborted) sendQueued();
}

// afterTurn redraws the conversation as the server kept it (with the ids the
// copy and regenerate buttons need) and refreshes the lists.
async function afterTurn(id, wasNew) {
	await loadSessions().catch(fail);
	if (String(state.current) !== String(id)) return;
	await loadMessages(id).catch(fail);
	// The title may be new (a first message), and a new conversation's
	// space is now fixed.
	$('conv-title').textContent = currentSession()?.title || '（無題）';
	sessionButtons();
	showSpace();
	if (wasNew) loadLinkedNotes(id).catch(fail);
	loadDocs(id).catch(() => {});
}

// busyButtons shows 停止 while an answer is being written; 送信 stays, and
// what it sends meanwhile waits its turn (enqueue).
function busyButtons() {
	$('stop').hidden = !state.busy;
}

// stop asks the server to stop the current conversation's turn (a page that
// merely leaves does not).
async function stop() {
	const id = state.busy && state.busy.session;
	if (id == null) return;
	try {
		await request('POST', `/chat/sessions/${encodeURIComponent(id)}/stop`);
	} catch (err) {
		fail(err);
	}
}

// ---- images to send ----

function addImages(files) {
	for (const f of files) {
		const docs = state.images.filter((i) => !i.url);
		if (!imageTypes.includes(f.type) && isDocument(f)) {
			if (docs.length >= maxDocuments) {
				toast(`文書は 1 回に ${maxDocuments} 件までです。`);
			} else if (docs.reduce((n, d) => n + d.file.size, f.size) > maxDocumentBytes) {
				toast(`${f.name}: 文書は合わせて 10 MB までです。`);
			} else {
				state.images.push({ file: f, url: null });
			}
		} else if (!imageTypes.includes(f.type)) {
			toast(`${f.name || '画像'}: 送れるのは PNG・JPEG・WebP・GIF の画像と、テキスト・Markdown・CSV・JSON・HTML・PDF の文書です。`);
		} else if (f.size > maxImageBytes) {
			toast(`${f.name || '画像'}: 10 MB を超える画像は送れません。`);
		} else if (state.images.filter((i) => i.url).length >= maxImages) {
			toast(`画像は 1 回に ${maxImages} 枚までです。`);
			break;
		} else {
			state.images.push({ file: f, url: URL.createObjectURL(f) });
		}
	}
	renderImages();
}

function renderImages() {
	const box = $('pending-images');
	box.hidden = !state.images.length;
	box.replaceChildren(...state.images.map((img, i) => el('li', {},
		preview(img),
		el('button', {
			type: 'button', class: 'link', 'aria-label': `${img.file.name || '画像'} を外す`,
			onclick: () => {
				if (img.url) URL.revokeObjectURL(img.url);
				state.images.splice(i, 1);
				renderImages();
			},
		}, '×'))));
}

// upload reads a picture or a document for the JSON body: its bytes in
// base64.
function upload(img) {
	return new Promise((resolve, reject) => {
		const r = new FileReader();
		r.onload = () => resolve({
			name: img.file.name || 'pasted.png', type: img.file.type,
			data: String(r.result).replace(/^data:[^,]*,/, ''),
		});
		r.onerror = () => reject(new Error(`${img.file.name || '画像'} を読めませんでした。`));
		r.readAsDataURL(img.file);
	});
}

// send sends text as a new turn; version is {regenerate: answer id} or
// {edit: message id} for a new version of the conversation from there.
// images are the pictures to send with it (by default the ones waiting
// beside the input).
async function send(text, version, images = version ? [] : state.images) {
	if (state.busy || readOnly()) return;
	// Busy from here: a message sent while the pictures are read waits.
	const ctl = new AbortController();
	state.busy = { ctl, session: state.current };
	busyButtons();
	let uploads = [];
	try {
		uploads = await Promise.all(images.map(upload));
	} catch (err) {
		fail(err);
		if (state.busy && state.busy.ctl === ctl) {
			state.busy = null;
			busyButtons();
		}
		return;
	}
	if (ctl.signal.aborted) return; // the page left the conversation meanwhile
	if (images === state.images) {
		state.images = [];
		renderImages();
	}
	const box = $('messages');
	box.querySelector('.empty')?.remove();
	const u = bubble('user');
	u.body.textContent = text;
	if (images.length) u.body.append(el('div', { class: 'thumbs' }, images.map(preview)));
	const a = bubble('assistant');
	a.body.append(el('span', { class: 'muted' }, '…'));
	box.append(u.node, a.node);
	keepQueueLast();
	scrollDown();

	const view = answerView(a);
	const body = { message: text, ...version };
	const pictures = uploads.filter((_, i) => images[i].url);
	const documents = uploads.filter((_, i) => !images[i].url);
	if (pictures.length) body.images = pictures;
	if (documents.length) body.files = documents;
	if (state.current != null) body.session_id = state.current;
	else {
		body.space = state.space;
		if (state.linked.size) body.note_page_ids = [...state.linked];
	}
	const model = $('model').value;
	if (model) body.model = model;

	let last = 0;
	let id = state.current;
	let refused = false; // the server said no before the turn began
	try {
		await stream('/chat/stream', body, (ev, eid) => {
			if (eid) last = eid;
			if (ev.type === 'session_id') {
				id = ev.value;
				state.busy.session = id;
				state.current = id;
				localStorage.setItem(sessionKey, id);
				history.replaceState(null, '', '?session=' + encodeURIComponent(id));
				// Listed at once (応答中), so it can be left and come back to.
				loadSessions().catch(() => {});
				return;
			}
			view.apply(ev);
		}, ctl.signal);
		// Cut before the end (the network, a proxy): the answer goes on on the
		// server; follow it from the last event seen.
		if (!view.end && id != null && !ctl.signal.aborted) await follow(id, ctl.signal, view, last);
	} catch (err) {
		if (err.name !== 'AbortError') {
			if (id != null && err.status === 0 && !ctl.signal.aborted) await follow(id, ctl.signal, view, last);
			else {
				refused = err.status >= 400;
				view.end = 'error';
				a.node.classList.add('error');
				if (!view.answer) a.body.textContent = err.message;
				fail(err);
			}
		}
	}
	// The page moved to another conversation (which cleared busy); the
	// answer goes on there.
	if (ctl.signal.aborted) return;
	try {
		view.finish();
		// Still busy while the conversation is redrawn as kept: a message
		// sent meanwhile waits, where it would be drawn and then wiped.
		if (id != null) await afterTurn(id, body.session_id == null);
	} finally {
		if (state.busy && state.busy.ctl === ctl) {
			state.busy = null;
			busyButtons();
		}
	}
	// A message refused (the rate limit, say) was not kept: it goes back to
	// the input with the ones waiting after it, so that none is lost.
	if (refused && !version) unqueue({ text, images });
	else sendQueued();
}

// ---- messages sent while an answer is written ----

// enqueue keeps a message sent while an answer is being written, shown
// greyed as 送信待ち with a way to take it back, to be sent once the answer
// has ended (or was stopped).
function enqueue(text) {
	const images = state.images;
	state.images = [];
	renderImages();
	const b = bubble('user');
	b.node.classList.add('queued');
	b.node.querySelector('.who').append(' ', el('span', { class: 'badge waiting' }, '送信待ち'));
	b.body.textContent = text;
	if (images.length) b.body.append(el('div', { class: 'thumbs' }, images.map(preview)));
	const item = { text, images, node: b.node };
	b.actions.append(el('button', {
		type: 'button', class: 'link small', onclick: () => {
			state.queue = state.queue.filter((q) => q !== item);
			item.node.remove();
		},
	}, '取り消す'));
	state.queue.push(item);
	$('messages').querySelector('.empty')?.remove();
	$('messages').append(b.node);
	scrollDown();
}

// keepQueueLast moves the waiting messages below everything else: a
// redrawn history, or the turn just sent, goes above them.
function keepQueueLast() {
	if (state.queue.length) $('messages').append(...state.queue.map((q) => q.node));
}

// sendQueued sends the oldest waiting message, if no answer is being
// written; send calls it again when that one's answer has ended.
function sendQueued() {
	if (state.busy || !state.queue.length || readOnly()) return;
	const next = state.queue.shift();
	next.node.remove();
	send(next.text, undefined, next.images);
}

// unqueue hands the waiting messages back to the input (after first, a
// message that was refused) when the page leaves their conversation or a
// send was refused, so none is lost or sent to another conversation.
function unqueue(first) {
	const back = first ? [first, ...state.queue] : state.queue;
	if (!back.length) return;
	const input = $('input');
	input.value = [...back.map((q) => q.text), input.value].filter((t) => t && t.trim()).join('\n\n');
	for (const q of back) {
		q.node?.remove();
		for (const img of q.images) if (!state.images.includes(img)) state.images.push(img);
	}
	state.images = [...state.images.filter((i) => i.url).slice(0, maxImages), ...state.images.filter((i) => !i.url).slice(0, maxDocuments)];
	renderImages();
	if (state.queue.length) toast('送信待ちだったメッセージを入力欄に戻しました。', 'info');
	state.queue = [];
}

function doneSummary(v) {
	if (!v || typeof v !== 'object') return '';
	const parts = [];
	const tin = v.prompt_tokens ?? v.prompt_eval_count;
	const tout = v.completion_tokens ?? v.eval_count;
	if (tin != null) parts.push(`入力 ${tin} トークン`);
	if (tout != null) parts.push(`出力 ${tout} トークン`);
	const ms = v.total_ms ?? v.latency_ms;
	if (ms != null) parts.push(`${(ms / 1000).toFixed(1)} 秒`);
	return parts.join('・');
}

// ---- models ----

function setModel(name) {
	const sel = $('model');
	if (![...sel.options].some((o) => o.value === name)) sel.append(el('option', { value: name }, name));
	sel.value = name;
}

// loadModels fills the selector: the default in force, the presets, then the
// models Ollama has. It may be slow (Ollama is asked); nothing waits for it.
async function loadModels() {
	const res = (await get('/api/models')) || {};
	const sel = $('model');
	const keep = sel.value || localStorage.getItem(modelKey) || '';
	const groups = [];
	const presets = res.presets || [];
	if (presets.length) {
		groups.push(el('optgroup', { label: 'プリセット' }, presets.map((p) =>
			el('option', { value: p.model }, p.label && p.label !== p.model ? `${p.label}（${p.model}）` : p.model))));
	}
	const installed = res.installed || [];
	const labels = res.labels || {};
	if (installed.length) {
		groups.push(el('optgroup', { label: 'インストール済み' }, installed.map((name) => el('option', { value: name }, labels[name] || name))));
	} else if (res.ollama_error) {
		groups.push(el('optgroup', { label: 'インストール済み（Ollama に接続できません）' }));
	}
	sel.replaceChildren(el('option', { value: '' }, res.default ? `既定のモデル（${res.default}）` : '既定のモデル'), ...groups);
	if (keep) setModel(keep);
}

// ---- notes linked to the session ----

function renderNotePicker() {
	const box = $('note-options');
	$('note-count').textContent = String(state.linked.size);
	if (!state.notes.length) {
		box.replaceChildren(el('p', { class: 'empty' }, 'ノートはまだありません。'), el('a', { href: '/notes' }, 'ノートを作る'));
		return;
	}
	box.replaceChildren(...state.notes.map((n) => el('label', {},
		el('input', {
			type: 'checkbox', value: String(n.id), checked: state.linked.has(n.id), disabled: readOnly(),
			onchange: (ev) => toggleNote(n.id, ev.target.checked),
		}),
		(n.section ? n.section + ' / ' : '') + (n.title || '（無題）'))));
}

async function loadNotes() {
	const space = chatSpace() || '';
	const notes = await get('/api/notes?space=' + encodeURIComponent(space));
	state.notesSpace = space;
	state.notes = Array.isArray(notes) ? notes : (notes && notes.pages) || [];
	renderNotePicker();
}

async function loadLinkedNotes(id) {
	const res = await get(`/chat/sessions/${encodeURIComponent(id)}/notes`);
	if (String(state.current) !== String(id)) return;
	state.linked = new Set((res && res.page_ids) || []);
	renderNotePicker();
}

async function toggleNote(pageId, on) {
	if (on) state.linked.add(pageId);
	else state.linked.delete(pageId);
	$('note-count').textContent = String(state.linked.size);
	if (state.current == null) return; // sent with the first message
	try {
		await request('PUT', `/chat/sessions/${encodeURIComponent(state.current)}/notes`, { page_ids: [...state.linked] });
	} catch (err) {
		fail(err);
		await loadLinkedNotes(state.current).catch(fail);
	}
}

// ---- fetched documents ----

// loadDocs lists the documents the web tools fetched in conversation id
// (issue 15): each opens its kept text, read-only.
async function loadDocs(id) {
	const files = await optional(`/chat/sessions/${encodeURIComponent(id)}/files`);
	if (String(state.current) !== String(id)) return;
	const panel = $('docs');
	if (!Array.isArray(files) || !files.length) {
		panel.hidden = true;
		return;
	}
	$('docs-count').textContent = String(files.length);
	$('docs-list').replaceChildren(...files.map((f) => el('li', {},
		el('button', { type: 'button', class: 'link', 'aria-controls': 'doc-view', onclick: () => showDoc(id, f) }, f.title || f.url),
		' ', el('span', { class: 'muted small' }, [f.media_type, bytes(f.size), when(f.fetched_at)].filter(Boolean).join('・')))));
	if (!files.some((f) => String(f.id) === $('doc-view').dataset.id)) closeDoc();
	panel.hidden = false;
}

async function showDoc(id, f) {
	try {
		const doc = await get(`/chat/sessions/${encodeURIComponent(id)}/files/${encodeURIComponent(f.id)}`);
		const view = $('doc-view');
		view.dataset.id = String(f.id);
		$('doc-title').replaceChildren(/^https?:/i.test(doc.url || '')
			? el('a', { href: doc.url, target: '_blank', rel: 'noopener noreferrer' }, doc.title || doc.url)
			: (doc.title || doc.url || ''));
		$('doc-meta').textContent = [doc.media_type, bytes(doc.size), when(doc.fetched_at),
			doc.truncated ? '長いため途中までを保存' : ''].filter(Boolean).join('・');
		$('doc-text').textContent = doc.text || '';
		view.hidden = false;
		$('doc-close').focus();
	} catch (err) {
		fail(err);
	}
}

function closeDoc() {
	const view = $('doc-view');
	view.hidden = true;
	delete view.dataset.id;
	$('doc-text').textContent = '';
}

// ---- session actions ----

async function exportSession() {
	try {
		const data = await get(`/chat/sessions/${encodeURIComponent(state.current)}/export`);
		const blob = new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' });
		const a = el('a', { href: URL.createObjectURL(blob), download: `yorozu-session-${state.current}.json` });
		document.body.append(a);
		a.click();
		a.remove();
		setTimeout(() => URL.revokeObjectURL(a.href), 10000);
	} catch (err) {
		fail(err);
	}
}

async function importSession(file) {
	try {
		const data = JSON.parse(await file.text());
		const res = await request('POST', '/chat/sessions/import', data);
		await loadSessions();
		if (res && res.id != null) await select(res.id);
		toast('会話を読み込みました。', 'info');
	} catch (err) {
		fail(err instanceof SyntaxError ? new Error('JSON ファイルとして読めません。') : err);
	}
}

async function deleteSession() {
	const s = currentSession();
	if (!s) return;
	try {
		await request('DELETE', `/chat/sessions/${encodeURIComponent(s.id)}`);
		await loadSessions();
		await select(null);
	} catch (err) {
		fail(err);
	}
}

// rename turns the title into a field: Enter keeps the new name, Escape
// (or leaving it empty) keeps the old one.
function rename() {
	const s = currentSession();
	if (!s) return;
	const h = $('conv-title');
	const input = el('input', { type: 'text', id: 'title-input', value: s.title || '', 'aria-label': '会話の名前', maxlength: 100 });
	let done = false;
	const end = async (save) => {
		if (done) return;
		done = true;
		const title = input.value.trim();
		input.replaceWith(h);
		if (!save || !title || title === s.title) return;
		try {
			await request('PATCH', `/chat/sessions/${encodeURIComponent(s.id)}`, { title });
			s.title = title;
			h.textContent = title;
			renderSessions();
		} catch (err) {
			fail(err);
		}
	};
	input.addEventListener('keydown', (ev) => {
		if (ev.key === 'Enter' && !ev.isComposing && ev.keyCode !== 229) {
			ev.preventDefault();
			end(true);
		} else if (ev.key === 'Escape') end(false);
	});
	input.addEventListener('blur', () => end(true));
	h.replaceWith(input);
	input.focus();
	input.select();
}

// ---- search ----

function wireSearch() {
	const input = $('search');
	let timer = 0;
	let seq = 0;
	input.addEventListener('input', () => {
		clearTimeout(timer);
		timer = setTimeout(async () => {
			const q = input.value.trim();
			const box = $('search-results');
			const mine = ++seq;
			if (!q) {
				box.hidden = true;
				$('session-list').hidden = false;
				return;
			}
			try {
				const hits = (await get('/api/search?q=' + encodeURIComponent(q))) || [];
				if (mine !== seq) return;
				box.hidden = false;
				$('session-list').hidden = true;
				if (!hits.length) {
					empty(box, `「${q}」を含むメッセージはありません。`);
					return;
				}
				box.replaceChildren(...hits.map((h) => el('li', {}, h.role === 'channel_log'
					// A channel log's message opens in Discord.
					? el('a', { href: h.link, target: '_blank', rel: 'noopener' },
						el('span', { class: 'hit-title' }, h.session_title),
						el('span', { class: 'snippet' }, h.snippet),
						el('span', { class: 'meta' }, (h.author || '発言') + ' ・ ' + when(h.created_at)))
					: el('button', {
						type: 'button', onclick: () => select(h.session_id, h.message_id),
					}, el('span', { class: 'hit-title' }, h.session_title || '（無題）'),
					el('span', { class: 'snippet' }, h.snippet),
					el('span', { class: 'meta' }, (h.role === 'assistant' ? 'よろず' : '発言') + ' ・ ' + when(h.created_at))))));
			} catch (err) {
				fail(err);
			}
		}, 250);
	});
}

// ---- wiring ----

function wire() {
	$('new-session').addEventListener('click', () => select(null).then(() => $('input').focus()));
	$('composer').addEventListener('submit', (ev) => {
		ev.preventDefault();
		const input = $('input');
		const text = input.value.trim();
		if (!text && !state.images.length) return;
		if (readOnly()) return;
		input.value = '';
		// While an answer is written, and until the messages already waiting
		// have gone, a message waits its turn.
		if (!state.busy && !state.queue.length) send(text);
		else {
			enqueue(text);
			sendQueued();
		}
	});
	$('attach').addEventListener('click', () => $('image-file').click());
	$('image-file').addEventListener('change', (ev) => {
		addImages([...ev.target.files]);
		ev.target.value = '';
	});
	$('input').addEventListener('paste', (ev) => {
		const files = [...(ev.clipboardData?.files || [])].filter((f) => f.type.startsWith('image/'));
		if (!files.length) return;
		ev.preventDefault();
		addImages(files);
	});
	// Enter sends and Shift+Enter starts a new line; Enter that confirms an
	// IME conversion (isComposing, keyCode 229, or just after
	// compositionend on some browsers) never sends. Ctrl+Enter sends too.
	$('input').addEventListener('compositionstart', () => { state.composing = true; });
	$('input').addEventListener('compositionend', () => { setTimeout(() => { state.composing = false; }, 0); });
	$('input').addEventListener('keydown', (ev) => {
		if (ev.key !== 'Enter' || ev.shiftKey || ev.altKey) return;
		if (ev.isComposing || ev.keyCode === 229 || state.composing) return;
		ev.preventDefault();
		$('composer').requestSubmit();
	});
	$('stop').addEventListener('click', stop);
	$('rename').addEventListener('click', rename);
	wireSearch();
	$('doc-close').addEventListener('click', closeDoc);
	$('model').addEventListener('change', (ev) => localStorage.setItem(modelKey, ev.target.value));
	$('space').addEventListener('change', (ev) => {
		state.space = ev.target.value;
		localStorage.setItem(spaceKey, state.space);
		state.linked = new Set(); // pages of another space cannot be linked
		loadNotes().catch(fail);
	});
	$('export').addEventListener('click', exportSession);
	armed($('delete-session'), '本当に削除', deleteSession);
	$('import').addEventListener('click', () => $('import-file').click());
	$('import-file').addEventListener('change', (ev) => {
		const f = ev.target.files[0];
		ev.target.value = '';
		if (f) importSession(f);
	});
}

async function main() {
	wire();
	start();
	// The session list is the first render; everything else fills in beside it.
	const models = loadModels().catch(fail);
	try {
		const [picked] = await Promise.all([spacePicker($('space'), state.space), loadSessions()]);
		state.space = picked;
	} catch (err) {
		fail(err);
	}
	const wanted = new URLSearchParams(location.search).get('session') || localStorage.getItem(sessionKey);
	const known = state.sessions.some((s) => String(s.id) === String(wanted));
	// A message sent while the page was still loading is under way: stay on it.
	if (!state.busy) await select(known ? wanted : null);
	await models;
}

main();
