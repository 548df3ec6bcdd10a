// Persona and model per Discord channel.
import { optional, request } from './api.js';
import { $, armed, el, empty, fail, start, toast, when } from './ui.js';

async function load() {
	const items = await optional('/api/channels');
	const box = $('channels');
	if (items === null) {
		empty(box, 'このサーバーはチャンネルごとの設定にまだ対応していません。');
		return;
	}
	if (!items.length) {
		empty(box, 'チャンネルごとの設定はまだありません。Discord で /persona や /model を使うとここに並びます。');
		return;
	}
	box.replaceChildren(...items.map((c) => {
		const persona = el('textarea', { rows: 3, 'aria-label': `チャンネル ${c.channel_id} の人格` });
		persona.value = c.persona || '';
		const model = el('input', { value: c.model || '', 'aria-label': `チャンネル ${c.channel_id} のモデル`, placeholder: '既定のモデル' });
		const form = el('form', { class: 'entry', onsubmit: async (ev) => {
			ev.preventDefault();
			try {
				await request('PUT', `/api/channels/${encodeURIComponent(c.channel_id)}`, { persona: persona.value, model: model.value.trim() });
				toast('保存しました。', 'info');
			} catch (err) {
				fail(err);
			}
		} },
		el('div', { class: 'row' },
			el('strong', {}, 'チャンネル ' + c.channel_id),
			c.parent_id ? el('span', { class: 'muted small' }, '（スレッド・親 ' + c.parent_id + '）') : null,
			c.guild_id ? el('span', { class: 'muted small' }, 'サーバー ' + c.guild_id) : null,
			el('span', { class: 'muted small grow' }, when(c.updated_at))),
		el('label', { class: 'grow' }, '人格'), persona,
		el('div', { class: 'row mt' }, el('label', {}, 'モデル ', model),
			el('button', { type: 'submit', class: 'primary' }, '保存'),
			armed(el('button', { type: 'button', class: 'link danger' }, '既定に戻す'), '本当に戻す', async () => {
				try {
					await request('DELETE', `/api/channels/${encodeURIComponent(c.channel_id)}`);
					await load();
				} catch (err) {
					fail(err);
				}
			})));
		return el('li', {}, form);
	}));
}

start();
load().catch(fail);
