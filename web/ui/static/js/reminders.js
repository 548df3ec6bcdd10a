// 予定: every user's reminders and scheduled posts, with their rules, their
// next occurrences (in this browser's time zone) and what each occurrence
// delivered. Pending ones can be paused, resumed, cancelled and sent once
// as a test. The form makes new ones: the words of "when" are read back as
// they are typed, by the same reader as /remind add.
import { get, request } from './api.js';
import {
	$, armed, channelGroups, channelName, el, empty, fail, fieldMessage, knowNames, members, showFieldError,
	spaceLabel, start, toast, userName, when,
} from './ui.js';

const statusLabel = { pending: '有効', paused: '一時停止中', delivered: '完了', cancelled: '取り消し済み', failed: '失敗' };
const kindLabel = { remind: 'リマインダー', post: '定期投稿', digest: '話題のまとめ' };

const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
const occurrenceFmt = new Intl.DateTimeFormat('ja-JP', {
	month: 'numeric', day: 'numeric', weekday: 'short', hour: '2-digit', minute: '2-digit', timeZoneName: 'short',
});
const handledFmt = new Intl.DateTimeFormat('ja-JP', { month: 'numeric', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** at formats an occurrence in the browser's zone, the zone named. */
function at(t) {
	const d = new Date(t);
	return isNaN(d) ? String(t) : occurrenceFmt.format(d);
}

/** lateness says how late a delivery went out, in words. */
function lateness(ms) {
	const s = Math.round(ms / 1000);
	if (s < 1) return '定刻';
	if (s < 60) return `${s}秒遅れ`;
	if (s < 3600) return `${Math.floor(s / 60)}分${s % 60 ? (s % 60) + '秒' : ''}遅れ`;
	const m = Math.round(s / 60);
	return `${Math.floor(m / 60)}時間${m % 60 ? (m % 60) + '分' : ''}遅れ`;
}

function status(r) {
	const label = statusLabel[r.status] || r.status;
	if (r.status === 'delivered') return label + ' ' + when(r.notified_at);
	if (r.status === 'cancelled') return label + ' ' + when(r.cancelled_at);
	if (r.status === 'failed') return label + ' ' + when(r.failed_at);
	if (r.status === 'paused') return label + ' ' + when(r.paused_at) + ' から';
	return label;
}

function delivery(d) {
	const what = d.error === 'skipped'
		? el('span', { class: 'muted' }, 'スキップ')
		: d.error
			? el('span', { class: 'error-note' }, '送れませんでした: ' + d.error)
			: el('span', {}, handledFmt.format(new Date(d.handled_at)) + ' に送信',
				el('span', { class: d.late_ms >= 60000 ? 'late warn' : 'late' }, '（' + lateness(d.late_ms) + '）'));
	return el('li', {},
		el('span', { class: 'occ' }, at(d.occurrence) + ' の回'), ' ', what,
		d.covers > 1 ? el('span', { class: 'muted small' }, ` 止まっていた間の ${d.covers} 回分をまとめて`) : null);
}

// open keeps which delivery lists are unfolded across reloads.
const open = new Set();

function deliveries(r) {
	if (!r.deliveries || !r.deliveries.length) return null;
	const box = el('details', { class: 'deliveries', open: open.has(r.id),
		ontoggle: () => (box.open ? open.add(r.id) : open.delete(r.id)) },
	el('summary', {}, `配信の記録（直近 ${r.deliveries.length} 件）`),
	el('ul', {}, r.deliveries.map(delivery)));
	return box;
}

function schedule(r) {
	const rule = r.rule || (r.rrule ? r.rrule : '1回だけ');
	return el('p', { class: 'schedule small' },
		r.rrule ? el('span', { class: 'muted' }, '繰り返し: ') : null,
		el('span', { class: 'rule' }, rule),
		r.time_zone ? el('span', { class: 'muted' }, `（${r.time_zone}）`) : null,
		r.occurrences ? el('span', { class: 'muted' }, ` ・ これまで ${r.occurrences} 回`) : null);
}

function upcoming(r) {
	const next = r.next_occurrences || [];
	if (!next.length) return null;
	const label = r.status === 'paused' ? '再開すれば: ' : (next.length > 1 ? `次の ${next.length} 回: ` : '予定: ');
	return el('div', { class: 'upcoming small' + (r.status === 'paused' ? ' paused' : '') },
		el('span', { class: 'muted' }, label),
		el('ol', { class: 'next' }, next.map((t) => el('li', {}, el('time', { datetime: t }, at(t))))));
}

function act(r, action, done) {
	return async () => {
		try {
			await request('POST', `/api/reminders/${encodeURIComponent(r.id)}/${action}`);
			toast(done, 'info');
			await load();
		} catch (err) {
			fail(err);
			await load().catch(fail);
		}
	};
}

// testSend posts r once now, marked as a test; its schedule stays.
function testSend(r) {
	return async (ev) => {
		const b = ev.currentTarget;
		b.disabled = true;
		try {
			await request('POST', `/api/reminders/${encodeURIComponent(r.id)}/test`);
			toast('テスト送信しました。次の予定は変わりません。', 'info');
		} catch (err) {
			fail(err);
		} finally {
			b.disabled = false;
		}
	};
}

function buttons(r) {
	if (r.status !== 'pending' && r.status !== 'paused') return null;
	return el('span', { class: 'actions' },
		el('button', { type: 'button', class: 'edit', onclick: () => startEdit(r) }, '編集'),
		el('button', { type: 'button', class: 'test', onclick: testSend(r) }, '今すぐテスト送信'),
		r.status === 'paused'
			? el('button', { type: 'button', class: 'resume', onclick: act(r, 'resume', '再開しました。') }, '再開')
			: el('button', { type: 'button', class: 'pause', onclick: act(r, 'pause', '一時停止しました。') }, '一時停止'),
		armed(el('button', { type: 'button', class: 'link danger' }, '取り消す'), '本当に取り消す', act(r, 'cancel', '取り消しました。')));
}

function entry(r) {
	const kind = r.kind || 'remind';
	return el('li', { class: 'entry status-' + r.status, dataset: { id: r.id } },
		el('div', { class: 'row' },
			el('span', { class: 'badge status-' + r.status }, status(r)),
			el('span', { class: 'kind kind-' + kind }, kindLabel[kind] || kind),
			spaceLabel({ space: r.guild_id ? 'guild:' + r.guild_id : (r.user_id ? 'dm:' + r.user_id : '') }),
			el('span', { class: 'muted small grow' }, r.user_id ? userName(r.user_id, r.guild_id || '') : '',
				r.guild_id && r.channel_id ? ' ・ ' + channelName(r.channel_id) : ''),
			buttons(r)),
		el('p', { class: 'content' }, r.content || ''),
		schedule(r),
		upcoming(r),
		r.status === 'failed' && r.last_error ? el('p', { class: 'error-note small' }, r.last_error) : null,
		deliveries(r));
}

async function load() {
	const [res] = await Promise.all([get('/api/reminders'), knowNames()]);
	const items = Array.isArray(res) ? res : (res && res.reminders) || [];
	const box = $('reminders');
	if (!items.length) {
		empty(box, '予定はありません。Discord で「リマインドして」「毎朝7時に天気を投稿して」と頼むと作られます。');
		return;
	}
	box.replaceChildren(...items.map(entry));
}

// ---- the form ----

const form = {
	kind: $('schedule-kind'), channel: $('schedule-channel'), user: $('schedule-user'),
	content: $('schedule-content'), when: $('schedule-when'), reading: $('schedule-reading'),
};

// fillChannels offers every named channel and thread, by server.
function fillChannels() {
	const groups = channelGroups();
	form.channel.replaceChildren(el('option', { value: '' }, groups.length ? '選んでください' : 'まだチャンネルを知りません（Discord でよろずが見たチャンネルが並びます）'),
		...groups);
	fillUsers();
}

// fillUsers offers the members of the chosen channel's server.
function fillUsers() {
	const opt = form.channel.selectedOptions[0];
	const guild = opt ? opt.dataset.guild : '';
	form.user.replaceChildren(el('option', { value: '' }, 'だれにもメンションしない'),
		...(guild ? members(guild) : []).map((m) => el('option', { value: m.id }, m.name)));
	$('schedule-user-field').hidden = form.kind.value !== 'remind';
}

let previewSeq = 0;
let previewTimer = 0;

// preview reads the words of "when" back: the rule and the next five, or
// the one time, or why they cannot be read.
async function preview() {
	const words = form.when.value.trim();
	const seq = ++previewSeq;
	if (!words) {
		form.reading.replaceChildren();
		showFieldError(form.when, '');
		return;
	}
	try {
		const p = await request('POST', '/api/reminders/preview', { when: words });
		if (seq !== previewSeq) return;
		showFieldError(form.when, '');
		form.reading.replaceChildren(...[
			el('p', { class: 'rule' }, p.repeats ? el('span', { class: 'muted' }, '繰り返し: ') : el('span', { class: 'muted' }, '1回だけ: '),
				p.repeats ? p.rule : at(p.next[0]), el('span', { class: 'muted' }, `（${p.time_zone}）`)),
			p.note ? el('p', { class: 'muted' }, p.note) : null,
			p.repeats ? el('div', { class: 'upcoming' }, el('span', { class: 'muted' }, `次の ${p.next.length} 回: `),
				el('ol', { class: 'next' }, p.next.map((t) => el('li', {}, el('time', { datetime: t }, at(t)))))) : null,
		].filter(Boolean));
	} catch (err) {
		if (seq !== previewSeq) return;
		if (err.status !== 400) {
			fail(err);
			return;
		}
		form.reading.replaceChildren();
		showFieldError(form.when, fieldMessage(err));
	}
}

// editing is the schedule the form changes; null while it makes a new one.
let editing = null;

const whenPlaceholder = form.when.placeholder;

// startEdit fills the form with r: 保存 changes it; "when" left empty keeps
// its timing.
function startEdit(r) {
	editing = r;
	form.kind.value = r.kind || 'remind';
	if (![...form.channel.options].some((o) => o.value === r.channel_id)) {
		form.channel.append(el('option', { value: r.channel_id, dataset: { guild: r.guild_id } }, channelName(r.channel_id)));
	}
	form.channel.value = r.channel_id;
	fillUsers();
	if (r.user_id && r.user_id !== 'admin' && ![...form.user.options].some((o) => o.value === r.user_id)) {
		form.user.append(el('option', { value: r.user_id }, userName(r.user_id, r.guild_id)));
	}
	form.user.value = r.user_id === 'admin' ? '' : r.user_id;
	form.content.value = r.content || '';
	form.when.value = '';
	form.when.placeholder = '空欄なら今のまま: ' + (r.rule || at(r.due_at));
	form.reading.replaceChildren();
	$('schedule-form-title').textContent = '予定を編集';
	$('schedule-submit').textContent = '保存';
	$('schedule-cancel').hidden = false;
	$('schedule-new').open = true;
	$('schedule-new').scrollIntoView({ block: 'start' });
	form.content.focus();
}

function stopEdit() {
	editing = null;
	form.content.value = '';
	form.when.value = '';
	form.when.placeholder = whenPlaceholder;
	form.reading.replaceChildren();
	$('schedule-form-title').textContent = '予定を作る';
	$('schedule-submit').textContent = '作成';
	$('schedule-cancel').hidden = true;
}

async function create(ev) {
	ev.preventDefault();
	const opt = form.channel.selectedOptions[0];
	const fields = { channel_id: form.channel, content: form.content, when: form.when };
	for (const f of Object.values(fields)) showFieldError(f, '');
	try {
		const body = {
			kind: form.kind.value, guild_id: opt ? opt.dataset.guild || '' : '', channel_id: form.channel.value,
			user_id: form.kind.value === 'remind' ? form.user.value : '', content: form.content.value, when: form.when.value,
		};
		if (editing) await request('PUT', `/api/reminders/${encodeURIComponent(editing.id)}`, body);
		else await request('POST', '/api/reminders', body);
		toast(editing ? '予定を変更しました。' : '予定を作りました。', 'info');
		stopEdit();
		await load();
	} catch (err) {
		const field = fields[err.field];
		if (err.status === 400 && field) {
			showFieldError(field, fieldMessage(err));
			field.focus();
			return;
		}
		fail(err);
	}
}

start();
$('zone').textContent = zone;
knowNames().then(fillChannels);
form.channel.addEventListener('change', fillUsers);
form.kind.addEventListener('change', fillUsers);
form.when.addEventListener('input', () => {
	clearTimeout(previewTimer);
	previewTimer = setTimeout(() => preview(), 250);
});
$('schedule-form').addEventListener('submit', create);
$('schedule-cancel').addEventListener('click', stopEdit);
load().catch(fail);
