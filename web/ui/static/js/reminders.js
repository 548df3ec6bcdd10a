// Reminders of every user: pending ones can be cancelled.
import { get, request } from './api.js';
import { $, armed, el, empty, fail, start, when } from './ui.js';

function status(r) {
	if (r.cancelled_at) return '取り消し済み';
	if (r.notified_at) return '通知済み ' + when(r.notified_at);
	return '予定';
}

async function load() {
	const res = await get('/api/reminders');
	const items = Array.isArray(res) ? res : (res && res.reminders) || [];
	const box = $('reminders');
	if (!items.length) {
		empty(box, 'リマインダーはありません。Discord で「リマインドして」と頼むと作られます。');
		return;
	}
	box.replaceChildren(...items.map((r) => {
		const pending = !r.cancelled_at && !r.notified_at;
		return el('li', { class: 'entry', dataset: { id: r.id } },
			el('div', { class: 'row' },
				el('strong', {}, when(r.due_at)),
				el('span', { class: 'badge' }, status(r)),
				el('span', { class: 'muted small grow' }, r.user_name || (r.user_id ? 'ユーザー ' + r.user_id : ''), r.channel_id ? ' ・ チャンネル ' + r.channel_id : ''),
				pending ? armed(el('button', { type: 'button', class: 'link danger' }, '取り消す'), '本当に取り消す', async () => {
					try {
						await request('POST', `/api/reminders/${encodeURIComponent(r.id)}/cancel`);
						await load();
					} catch (err) {
						fail(err);
					}
				}) : null),
			el('p', {}, r.content || ''));
	}));
}

start();
load().catch(fail);
