// The login screen: one password field.
import { request, rememberToken } from './api.js';

const form = document.getElementById('login-form');
const errorBox = document.getElementById('login-error');

// next stays on this site: it is read as the browser would read it against
// this page's origin (where "/\host" and "/<tab>/host" mean another host)
// and used only if it is a path here; anything else goes to the top page.
function nextPath() {
	const next = new URLSearchParams(location.search).get('next') || '/';
	if (!next.startsWith('/')) return '/';
	try {
		const u = new URL(next, location.origin);
		if (u.origin === location.origin) return u.pathname + u.search + u.hash;
	} catch { /* not a URL at all */ }
	return '/';
}

form.addEventListener('submit', async (ev) => {
	ev.preventDefault();
	errorBox.textContent = '';
	const button = form.querySelector('button');
	button.disabled = true;
	try {
		const res = await request('POST', '/api/login', { password: form.password.value });
		rememberToken(res.csrf_token);
		location.assign(nextPath());
	} catch (err) {
		errorBox.textContent = err.status === 401 ? 'パスワードが違います。'
			: err.status === 429 ? 'ログインの失敗が続いたため、しばらく受け付けません。15 分ほど待ってください。'
			: err.message;
		form.password.select();
	} finally {
		button.disabled = false;
	}
});
