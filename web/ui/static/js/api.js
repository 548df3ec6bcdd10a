// The admin API: JSON requests with the CSRF token on writes, and the chat
// stream read as server-sent events from a POST.

const tokenKey = 'yorozu.csrf';

/**
 * ApiError is a failed request; message is what a person can read, field
 * the request field it is about (bad input), if any.
 */
export class ApiError extends Error {
	constructor(status, message, field = '') {
		super(message);
		this.status = status;
		this.field = field;
	}
}

/** rememberToken keeps the CSRF token the login answer carried. */
export function rememberToken(token) {
	sessionStorage.setItem(tokenKey, token);
}

let tokenPromise = null;

// csrfToken is fetched only before the first write, so reading screens never
// wait for it.
async function csrfToken() {
	const kept = sessionStorage.getItem(tokenKey);
	if (kept) return kept;
	if (!tokenPromise) {
		tokenPromise = request('GET', '/api/me').then((me) => {
			rememberToken(me.csrf_token);
			return me.csrf_token;
		}).finally(() => { tokenPromise = null; });
	}
	return tokenPromise;
}

function toLogin() {
	sessionStorage.removeItem(tokenKey);
	const next = location.pathname + location.search;
	location.assign('/login?next=' + encodeURIComponent(next));
}

async function errorOf(res) {
	let msg = '';
	let field = '';
	try {
		const body = await res.json();
		msg = body.error || body.message || '';
		field = body.field || '';
	} catch { /* not JSON */ }
	if (!msg) {
		msg = {
			400: '入力が正しくありません。',
			403: '操作が拒否されました。ページを読み込み直してください。',
			404: '見つかりません。',
			429: '操作が多すぎます。しばらく待ってください。',
			503: 'この機能は今使えません。',
		}[res.status] || `サーバーでエラーが起きました（${res.status}）。`;
	}
	return new ApiError(res.status, msg, field);
}

async function send(method, path, body, retried) {
	const headers = { Accept: 'application/json' };
	if (method !== 'GET' && path !== '/api/login') headers['X-CSRF-Token'] = await csrfToken();
	if (body !== undefined) headers['Content-Type'] = 'application/json';
	let res;
	try {
		res = await fetch(path, {
			method, headers, credentials: 'same-origin',
			body: body === undefined ? undefined : JSON.stringify(body),
		});
	} catch {
		throw new ApiError(0, 'サーバーにつながりません。');
	}
	if (res.status === 401 && path !== '/api/login') {
		toLogin();
		throw new ApiError(401, 'ログインしてください。');
	}
	if (res.status === 403 && method !== 'GET' && !retried) {
		// A token from an older login: fetch the live one and try once more.
		sessionStorage.removeItem(tokenKey);
		return send(method, path, body, true);
	}
	return res;
}

/** request sends one JSON request and returns the decoded answer (null when empty). */
export async function request(method, path, body) {
	const res = await send(method, path, body, false);
	if (!res.ok) throw await errorOf(res);
	const text = await res.text();
	return text ? JSON.parse(text) : null;
}

/** get is request('GET', path). */
export const get = (path) => request('GET', path);

/** optional is get, but a 404 (an endpoint this server lacks) gives null. */
export async function optional(path) {
	try {
		return await get(path);
	} catch (err) {
		if (err.status === 404) return null;
		throw err;
	}
}

/**
 * stream posts body to path and calls onEvent({type, value}, id) for each
 * server-sent event until the stream ends or signal aborts. With body
 * undefined it is a GET (following a turn already running); a 204 answer
 * (nothing to follow) calls nothing.
 */
export async function stream(path, body, onEvent, signal, headers = {}) {
	const get = body === undefined;
	const h = { Accept: 'text/event-stream', ...headers };
	if (!get) {
		h['Content-Type'] = 'application/json';
		h['X-CSRF-Token'] = await csrfToken();
	}
	let res;
	try {
		res = await fetch(path, {
			method: get ? 'GET' : 'POST', credentials: 'same-origin', signal, headers: h,
			body: get ? undefined : JSON.stringify(body),
		});
	} catch (err) {
		if (err.name === 'AbortError') throw err;
		throw new ApiError(0, 'サーバーにつながりません。');
	}
	if (res.status === 401) {
		toLogin();
		throw new ApiError(401, 'ログインしてください。');
	}
	if (!res.ok) throw await errorOf(res);
	if (res.status === 204) return;
	const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
	let buf = '';
	for (;;) {
		const { value, done } = await reader.read();
		if (done) break;
		buf += value;
		let cut;
		while ((cut = buf.indexOf('\n\n')) >= 0) {
			const block = buf.slice(0, cut);
			buf = buf.slice(cut + 2);
			const lines = block.split('\n');
			const id = lines.filter((l) => l.startsWith('id:')).map((l) => Number(l.slice(3).trim()))[0];
			const data = lines.filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart()).join('\n');
			if (data) onEvent(JSON.parse(data), id);
		}
	}
}
