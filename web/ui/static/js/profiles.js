// Member profiles: the facts members asked yorozu to keep about themselves
// (「覚えておいて：…」, /profile add), listed per space with a delete each.
import { get, request } from './api.js';
import { $, armed, el, empty, fail, spacePicker, when } from './ui.js';

async function load() {
	const sel = $('profiles-space');
	if (!sel.options.length) await spacePicker(sel, '');
	const space = sel.value;
	const res = (await get('/api/profiles?space=' + encodeURIComponent(space))) || {};
	const facts = res.facts || [];
	const box = $('profiles');
	if (!facts.length) {
		empty(box, 'このスペースで覚えていることはありません。');
		return;
	}
	box.replaceChildren(...facts.map((f) => {
		const li = el('li', { class: 'entry', dataset: { id: f.id } });
		li.append(el('div', { class: 'row' },
			el('span', { class: 'grow' }, el('strong', {}, f.user_name || f.user_id), '：', f.content),
			el('span', { class: 'muted small' }, when(f.created_at)),
			armed(el('button', { type: 'button', class: 'link danger' }, '削除'), '本当に削除', async () => {
				try {
					await request('DELETE', `/api/profiles/${encodeURIComponent(f.id)}?space=${encodeURIComponent(space)}`);
					li.remove();
					if (!box.children.length) empty(box, 'このスペースで覚えていることはありません。');
				} catch (err) {
					fail(err);
				}
			})));
		return li;
	}));
}

/** startProfiles fills the profiles section and follows its space picker. */
export function startProfiles() {
	$('profiles-space').addEventListener('change', () => load().catch(fail));
	load().catch(fail);
}
