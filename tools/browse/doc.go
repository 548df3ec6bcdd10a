// Package browse holds the tools that let the model look things up on the web:
// web_search, scrape_url, pdf_to_text and search_and_fetch.
//
// Every URL the model chooses is fetched through the guarded client of
// package fetch (Deps.Fetcher); long results are paged with signed
// continuation tokens of package page. Failures the model can act on come
// back as the tool's result text ("Blocked URL: …", "Invalid continuation
// token: …"), not as errors, so their wording reaches the model exactly.
package browse
