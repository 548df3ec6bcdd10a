#!/usr/bin/env bash
# Refreshes the pinned browser libraries under static/vendor/ from the npm
# registry. Only this script needs npm; building, testing and running yorozu
# do not. Change a version below, run it, look at the diff, run the browser
# test (go test ./cmd/yorozu -run Browser), commit.
#
# The UMD builds of DOMPurify and KaTeX are minified; wrapping each in a few
# lines makes it an ES module, so the page loads only modules (CSP
# script-src 'self', no globals).
set -euo pipefail

MARKED=18.2.1
DOMPURIFY=3.5.0
KATEX=0.19.1

here="$(cd "$(dirname "$0")" && pwd)"
out="$here/static/vendor"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

cd "$tmp"
for p in "marked@$MARKED" "dompurify@$DOMPURIFY" "katex@$KATEX"; do
	npm pack --silent "$p" >/dev/null
done
for f in *.tgz; do
	mkdir "${f%.tgz}" && tar xzf "$f" -C "${f%.tgz}"
done

rm -rf "$out" && mkdir -p "$out/katex/fonts"

esm() { # esm SRC DST: a UMD bundle as an ES module with one default export
	{
		printf 'const module = { exports: {} }; const exports = module.exports;\n'
		cat "$1"
		printf '\nexport default module.exports;\n'
	} >"$2"
}

sed '/^\/\/# sourceMappingURL=/d' "marked-$MARKED/package/lib/marked.esm.js" >"$out/marked.js"
cp "marked-$MARKED/package/LICENSE" "$out/marked.LICENSE"

esm "dompurify-$DOMPURIFY/package/dist/purify.min.js" "$out/purify.js"
sed -i '/^\/\/# sourceMappingURL=/d' "$out/purify.js"
cp "dompurify-$DOMPURIFY/package/LICENSE" "$out/purify.LICENSE"

esm "katex-$KATEX/package/dist/katex.min.js" "$out/katex/katex.js"
cp "katex-$KATEX/package/dist/katex.min.css" "$out/katex/katex.css"
# woff2 is enough for every browser that runs ES modules; the CSS lists it first.
cp "katex-$KATEX/package/dist/fonts/"*.woff2 "$out/katex/fonts/"
cp "katex-$KATEX/package/LICENSE" "$out/katex/LICENSE"

cat >"$out/VERSIONS" <<V
marked $MARKED (MIT)
dompurify $DOMPURIFY (Apache-2.0 or MPL-2.0)
katex $KATEX (MIT)
V
echo "vendored into $out:" && cat "$out/VERSIONS"
