// Persona, model, mode and channel talk per Discord server, channel, thread and DM.
import { get, optional, request } from './api.js';
import { $, armed, channelName, el, empty, fail, guildName, knowNames, start, toast, when } from './ui.js';

const maxPersona = 2000;

const fromLabel = {
	thread: 'このスレッドの設定', channel: 'チャンネルの設定', server: 'サーバーの既定', default: 'よろずの既定',
};

// The installed models, for the model fields' suggestions.
async function loadModels() {
	try {
		const m = await get('/api/models');
		const labels = m.labels || {};
		$('channel-models').replaceChildren(...(m.installed || []).map((n) => el('option', { value: n, label: labels[n] || n })));
	} catch { /* suggestions only; the server checks the name */ }
}

function title(c) {
	switch (c.kind) {
	case 'server': return guildName(c.guild_id) + ' の既定';
	case 'thread': {
		const name = channelName(c.channel_id, 'スレッド');
		return name.startsWith('#') ? 'スレッド ' + name : name;
	}
	case 'dm': return 'DM（チャンネル ID ' + c.channel_id + '）';
	}
	return channelName(c.channel_id);
}

function path(c) {
	return c.kind === 'server' ? `/api/servers/${encodeURIComponent(c.guild_id)}` : `/api/channels/${encodeURIComponent(c.channel_id)}`;
}

const modeLabel = {
	mention: 'mention: メンションと返信にだけ答える',
	free: 'free: すべての発言に答える（ほかの人だけへのメンションと // で始まる発言を除く）',
	thread: 'thread: メンションごとにスレッドを作り、スレッドではメンションなしで答える',
};

// hasMode: channels and threads of a server have a mode; servers and DMs not.
const hasMode = (c) => c.kind === 'channel' || c.kind === 'thread';

// hasTalk: a server's places may be given their channel's talk; a DM's
// history is its conversation already.
const hasTalk = (c) => c.kind !== 'dm';

function inForce(c) {
	const persona = c.persona_from === 'default' ? 'よろずの既定' : `${fromLabel[c.persona_from]}のペルソナ`;
	const mode = hasMode(c) ? `／モード ${c.mode_in_force}（${fromLabel[c.mode_from]}）` : '';
	const talk = hasTalk(c) ? `／会話の読み込み ${c.talk_in_force ? 'on' : 'off'}（${fromLabel[c.talk_from]}）` : '';
	return `いま: ${persona}／モデル ${c.model_in_force || '既定'}（${fromLabel[c.model_from]}）${mode}${talk}`;
}

// talkField chooses whether turns are given the channel's recent talk
// ('' inherits).
function talkField(c) {
	const inherit = { thread: '親チャンネルに合わせる', channel: 'サーバーに合わせる', server: '既定（on）' }[c.kind];
	const select = el('select', { 'aria-label': `${title(c)}の会話の読み込み` },
		el('option', { value: '' }, inherit),
		el('option', { value: 'on' }, 'on: 前回の返答のあとにチャンネルで話されたことも読む'),
		el('option', { value: 'off' }, 'off: メンションされた発言だけ読む'));
	select.value = c.talk === true ? 'on' : c.talk === false ? 'off' : '';
	return select;
}

// modeField is the mode selector of a channel or thread ('' inherits).
function modeField(c) {
	const inherit = c.kind === 'thread' ? '親チャンネルに合わせる' : '既定（mention）';
	const select = el('select', { 'aria-label': `${title(c)}のモード` },
		el('option', { value: '' }, inherit),
		...Object.entries(modeLabel).map(([v, label]) => el('option', { value: v }, label)));
	select.value = c.mode || '';
	return select;
}

function entry(c) {
	const id = 'persona-' + (c.kind === 'server' ? 'server-' + c.guild_id : c.channel_id);
	const persona = el('textarea', { id, rows: 3, maxLength: maxPersona, 'aria-label': `${title(c)}のペルソナ`,
		placeholder: c.persona ? '' : `空欄: ${fromLabel[c.persona_from] || '既定'}を受け継ぎます` });
	persona.value = c.persona || '';
	const count = el('span', { class: 'muted small' });
	const counted = () => { count.textContent = `${[...persona.value].length} / ${maxPersona} 文字`; };
	persona.addEventListener('input', counted);
	counted();
	const model = el('input', { value: c.model || '', list: 'channel-models', 'aria-label': `${title(c)}のモデル`,
		placeholder: '空欄: ' + (c.model_from === 'default' ? '既定のモデル' : fromLabel[c.model_from]) });
	const status = el('p', { class: 'muted small' }, inForce(c));
	const mode = hasMode(c) ? modeField(c) : null;
	const talk = hasTalk(c) ? talkField(c) : null;
	const show = (next) => {
		status.textContent = inForce(next);
		persona.value = next.persona || '';
		model.value = next.model || '';
		if (mode) mode.value = next.mode || '';
		if (talk) talk.value = next.talk === true ? 'on' : next.talk === false ? 'off' : '';
		counted();
	};
	const form = el('form', { class: 'entry', onsubmit: async (ev) => {
		ev.preventDefault();
		try {
			const body = { persona: persona.value, model: model.value.trim() };
			if (mode) body.mode = mode.value;
			if (talk) body.talk = talk.value;
			show(await request('PUT', path(c), body));
			toast('保存しました。', 'info');
		} catch (err) {
			fail(err);
		}
	} },
	el('div', { class: 'row' },
		el('strong', {}, title(c)),
		c.kind !== 'server' && c.guild_id ? el('span', { class: 'muted small' }, guildName(c.guild_id)) : null,
		el('span', { class: 'muted small' }, c.last_active ? '最後の会話 ' + when(c.last_active) : '')),
	status,
	el('div', { class: 'row' }, el('label', { for: id }, 'ペルソナ'), el('span', { class: 'grow' }), count),
	persona,
	mode ? el('div', { class: 'row mt' }, el('label', {}, 'モード ', mode)) : null,
	talk ? el('div', { class: 'row mt' }, el('label', {}, '会話の読み込み ', talk)) : null,
	el('div', { class: 'row mt' }, el('label', {}, 'モデル ', model),
		el('button', { type: 'submit', class: 'primary' }, '保存'),
		armed(el('button', { type: 'button', class: 'link danger' }, '受け継ぐ設定に戻す'), '本当に戻す', async () => {
			try {
				show(await request('DELETE', path(c)));
			} catch (err) {
				fail(err);
			}
		})));
	form.dataset.kind = c.kind;
	return el('li', {}, form);
}

async function load() {
	const [items] = await Promise.all([optional('/api/channels'), knowNames()]);
	const box = $('channels');
	if (items === null) {
		empty(box, 'このサーバーはチャンネルごとの設定にまだ対応していません。');
		return;
	}
	if (!items.length) {
		empty(box, 'まだ Discord のチャンネルを知りません。Discord でよろずに話しかけるか、/persona や /model を使うとここに並びます。');
		return;
	}
	box.replaceChildren(...items.map(entry));
}

// logEntry is a logged channel: its count, and buttons to stop its log
// and to delete what it keeps.
function logEntry(l) {
	const path = `/api/channel-logs/${encodeURIComponent(l.guild_id)}/${encodeURIComponent(l.channel_id)}`;
	const status = el('span', { class: 'muted small' });
	const stop = el('button', { type: 'button' }, '記録を止める');
	const show = (next) => {
		status.textContent = `${next.on ? '記録中' : '記録していません'}・${next.messages.toLocaleString('ja-JP')} 件` +
			(next.newest ? `・最新 ${when(next.newest)}` : '');
		stop.hidden = !next.on;
	};
	stop.addEventListener('click', async () => {
		try {
			show(await request('PUT', path, { on: false }));
			toast('記録を止めました。', 'info');
		} catch (err) {
			fail(err);
		}
	});
	show(l);
	return el('li', { class: 'entry' }, el('div', { class: 'row' },
		el('strong', {}, channelName(l.channel_id)),
		el('span', { class: 'muted small' }, guildName(l.guild_id)),
		status, el('span', { class: 'grow' }), stop,
		armed(el('button', { type: 'button', class: 'link danger' }, '記録を消す'), '本当に消す', async () => {
			try {
				show(await request('DELETE', path));
				toast('記録を消しました。', 'info');
			} catch (err) {
				fail(err);
			}
		})));
}

async function loadLogs() {
	const [items] = await Promise.all([optional('/api/channel-logs'), knowNames()]);
	const box = $('channel-logs');
	if (!items || !items.length) {
		empty(box, '記録しているチャンネルはありません。');
		return;
	}
	box.replaceChildren(...items.map(logEntry));
}

start();
loadModels();
load().catch(fail);
loadLogs().catch(fail);
