// Markdown for model answers and notes: marked, then DOMPurify, then KaTeX
// for math. KaTeX is loaded only when a text has math.
import { Marked } from '../vendor/marked.js';
import DOMPurify from '../vendor/purify.js';

function esc(s) {
	return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

function mathHTML(tex, display, raw) {
	const tag = display ? 'div' : 'span';
	const cls = display ? 'math math-display' : 'math';
	return `<${tag} class="${cls}" data-tex="${esc(tex)}"${display ? ' data-display="1"' : ''}>${esc(raw)}</${tag}>`;
}

// inlineDollar is the price rule: $…$ is math only when no space follows the
// opening $, nothing inside is a newline, and no digit follows the closing $
// ("$100 から $200" stays text). \$ inside is kept; outside, marked's escape
// turns \$ into a literal dollar.
const inlineDollar = /^\$(?![\s$])((?:\\[\s\S]|[^\\\n$])+?)\$(?!\d)/;
const inlineDisplay = /^\$\$([\s\S]+?)\$\$/;
const inlineParen = /^\\\(([\s\S]+?)\\\)/;
const blockDollar = /^ {0,3}\$\$([\s\S]+?)\$\$[^\S\n]*(?:\n|$)/;
const blockBracket = /^ {0,3}\\\[([\s\S]+?)\\\][^\S\n]*(?:\n|$)/;

const mathBlock = {
	name: 'mathBlock',
	level: 'block',
	start(src) {
		const m = src.match(/^ {0,3}(\$\$|\\\[)/m);
		return m ? m.index : undefined;
	},
	tokenizer(src) {
		const m = blockDollar.exec(src) || blockBracket.exec(src);
		if (m) return { type: 'mathBlock', raw: m[0], text: m[1].trim() };
		return undefined;
	},
	renderer(tok) {
		return mathHTML(tok.text, true, tok.raw.trim()) + '\n';
	},
};

const mathInline = {
	name: 'mathInline',
	level: 'inline',
	start(src) {
		const m = src.match(/(?<!\\)\$|\\\(/);
		return m ? m.index : undefined;
	},
	tokenizer(src) {
		let m = inlineDisplay.exec(src);
		if (m) return { type: 'mathInline', raw: m[0], text: m[1].trim(), display: true };
		m = inlineParen.exec(src) || inlineDollar.exec(src);
		if (m) return { type: 'mathInline', raw: m[0], text: m[1], display: false };
		return undefined;
	},
	renderer(tok) {
		return mathHTML(tok.text, tok.display, tok.raw);
	},
};

const md = new Marked({ gfm: true, breaks: true, extensions: [mathBlock, mathInline] });

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
	if (node.tagName === 'A' && node.hasAttribute('href')) {
		node.setAttribute('target', '_blank');
		node.setAttribute('rel', 'noopener noreferrer');
	}
});

/**
 * closeFence closes a ``` (or ~~~) fence left open at the end of text that
 * is still streaming, so the half-written code shows as code.
 */
export function closeFence(text) {
	let open = null;
	for (const line of text.split('\n')) {
		const m = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
		if (!m) continue;
		if (!open) {
			if (m[1][0] === '`' && m[2].includes('`')) continue; // not a fence: inline backticks
			open = m[1];
		} else if (m[1][0] === open[0] && m[1].length >= open.length && m[2].trim() === '') {
			open = null;
		}
	}
	return open ? text.replace(/\n?$/, '\n') + open : text;
}

/** toHTML renders Markdown to sanitised HTML (math as placeholders). */
export function toHTML(text, streaming = false) {
	const src = streaming ? closeFence(text || '') : (text || '');
	return DOMPurify.sanitize(md.parse(src), { FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select'] });
}

let katexPromise = null;

function loadKatex() {
	if (!katexPromise) {
		const link = document.createElement('link');
		link.rel = 'stylesheet';
		link.href = '/static/vendor/katex/katex.css';
		document.head.append(link);
		katexPromise = import('../vendor/katex/katex.js').then((m) => m.default);
	}
	return katexPromise;
}

/** typeset turns the math placeholders under root into KaTeX. */
export async function typeset(root) {
	const nodes = root.querySelectorAll('.math[data-tex]');
	if (!nodes.length) return;
	const katex = await loadKatex();
	for (const n of nodes) {
		if (!n.isConnected || !n.dataset.tex) continue;
		const tex = n.dataset.tex;
		delete n.dataset.tex;
		// render builds DOM nodes (never an HTML string), so the strict CSP holds
		// and \href and friends stay disabled (trust is off).
		katex.render(tex, n, { displayMode: n.dataset.display === '1', throwOnError: false });
	}
}

/** render puts text's Markdown into node, safely, and typesets its math. */
export function render(node, text, streaming = false) {
	node.innerHTML = toHTML(text, streaming);
	typeset(node).catch((err) => console.error('katex', err));
}
