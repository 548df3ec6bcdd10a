// Reminders of every user: pending ones can be cancelled.
import { get, request } from './api.js';
import { $, armed, el, empty, fail, spaceLabel, start, when } from './ui.js';

const statusLabel = { pending: '予定', delivered: '通知済み', cancelled: '取り消し済み', failed: '送れませんでした' };

function status(r) {
	const label = statusLabel[r.status] || r.status;
	if (r.status === 'delivered') return label + ' ' + when(r.notified_at);
	if (r.status === 'cancelled') return label + ' ' + when(r.cancelled_at);
	return label;
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
		const pending = r.status === 'pending';
		return el('li', { class: 'entry', dataset: { id: r.id } },
			el('div', { class: 'row' },
				el('strong', {}, when(r.due_at)),
				el('span', { class: 'badge status-' + r.status }, status(r)),
				spaceLabel({ space: r.guild_id ? 'guild:' + r.guild_id : (r.user_id ? 'dm:' + r.user_id : '') }),
				el('span', { class: 'muted small grow' }, r.user_id ? 'ユーザー ' + r.user_id : '', r.channel_id ? ' ・ チャンネル ' + r.channel_id : ''),
				pending ? armed(el('button', { type: 'button', class: 'link danger' }, '取り消す'), '本当に取り消す', async () => {
					try {
						await request('POST', `/api/reminders/${encodeURIComponent(r.id)}/cancel`);
						await load();
					} catch (err) {
						fail(err);
					}
				}) : null),
			el('p', {}, r.content || ''),
			r.status === 'failed' && r.last_error ? el('p', { class: 'error-note small' }, r.last_error) : null);
	}));
}

start();
load().catch(fail);
