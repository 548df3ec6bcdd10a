// Package fetch builds the one guarded HTTP client through which every URL a
// model chooses is fetched.
//
// The client speaks http and https only, refuses numeric host spellings that
// resolvers interpret differently (decimal, octal, hex, shortened IPv4),
// checks every resolved IP at connect time so DNS rebinding cannot slip an
// internal address past a name check, re-checks each of at most six
// redirects, and caps bodies at a configured size, both by Content-Length and
// by the bytes actually read. Addresses named in the allowlist
// (FETCH_ALLOWLIST) are exempt.
package fetch
