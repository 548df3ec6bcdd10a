// River's job UI (/jobs/) makes its own requests. Every write to the admin
// server needs the login's CSRF token, so this adds it to the UI's writes.
// The server puts this classic script first in the UI's page, so it runs
// before the UI's own modules.
(() => {
	const key = 'yorozu.csrf';
	const plain = window.fetch.bind(window);
	let pending = null;

	// token is the kept one, or (fresh, or none kept) the session's from /api/me.
	function token(fresh) {
		const kept = sessionStorage.getItem(key);
		if (kept && !fresh) return Promise.resolve(kept);
		if (!pending) {
			pending = plain('/api/me', { credentials: 'same-origin', headers: { Accept: 'application/json' } })
				.then((res) => (res.ok ? res.json() : {}))
				.then((me) => {
					if (me.csrf_token) sessionStorage.setItem(key, me.csrf_token);
					return me.csrf_token || '';
				})
				.finally(() => { pending = null; });
		}
		return pending;
	}

	window.fetch = async (input, init) => {
		const req = new Request(input, init);
		if (req.method === 'GET' || req.method === 'HEAD' || new URL(req.url).origin !== location.origin) return plain(req);
		const send = async (fresh) => {
			const again = req.clone();
			again.headers.set('X-CSRF-Token', await token(fresh));
			return plain(again);
		};
		const res = await send(false);
		// A token from an older login: fetch the live one and try once more.
		return res.status === 403 ? send(true) : res;
	};

	// River's page is its own; a link in a corner leads back to yorozu's.
	const back = () => {
		if (document.getElementById('yorozu-back')) return;
		const a = document.createElement('a');
		a.id = 'yorozu-back';
		a.href = '/';
		a.textContent = '← よろずの管理ページへ';
		a.setAttribute('style', 'position:fixed;left:8px;bottom:8px;z-index:2147483647;background:#2f6fdb;color:#fff;'
			+ 'padding:6px 12px;border-radius:8px;font:14px system-ui,sans-serif;text-decoration:none;box-shadow:0 2px 8px rgba(0,0,0,.3)');
		document.body.append(a);
	};
	if (document.body) back();
	else document.addEventListener('DOMContentLoaded', back);
})();
