package browse

import (
	"context"

	"github.com/yorozu-bot/yorozu/tools"
)

type searchArgs struct {
	Query      string `json:"query" jsonschema_description:"what to search the web for"`
	MaxResults int    `json:"max_results,omitempty" jsonschema:"minimum=1,maximum=20,default=5" jsonschema_description:"how many results to return"`
}

type scrapeArgs struct {
	URL          string `json:"url" jsonschema_description:"http(s) URL of the page to read"`
	MaxChars     int    `json:"max_chars,omitempty" jsonschema:"minimum=200,maximum=20000,default=4000" jsonschema_description:"most characters to return in this call"`
	ContinueFrom string `json:"continue_from,omitempty" jsonschema_description:"next_token from the page-info footer of the previous call, to read the next part"`
}

type pdfArgs struct {
	URLOrPath    string `json:"url_or_path" jsonschema_description:"http(s) URL of the PDF"`
	MaxChars     int    `json:"max_chars,omitempty" jsonschema:"minimum=200,maximum=30000,default=8000" jsonschema_description:"most characters to return in this call"`
	ContinueFrom string `json:"continue_from,omitempty" jsonschema_description:"next_token from the page-info footer of the previous call, to read the next pages"`
}

type filesArgs struct {
	Query        string `json:"query" jsonschema_description:"what the files should be about"`
	FileType     string `json:"file_type" jsonschema_description:"file extension to look for: pdf, csv, txt, md, json, html, htm, xml, py, js, ts, …"`
	MaxResults   int    `json:"max_results,omitempty" jsonschema:"minimum=1,maximum=10,default=3" jsonschema_description:"how many files to fetch"`
	MaxChars     int    `json:"max_chars,omitempty" jsonschema:"minimum=200,maximum=30000,default=8000" jsonschema_description:"most characters to return in this call"`
	ContinueFrom string `json:"continue_from,omitempty" jsonschema_description:"next_token from the page-info footer of the previous call, to read on"`
	SessionID    string `json:"session_id,omitempty" tool:"hidden"`
}

type readKeptArgs struct {
	FileID       int64  `json:"file_id" jsonschema_description:"id of the document, from list_fetched_files"`
	MaxChars     int    `json:"max_chars,omitempty" jsonschema:"minimum=200,maximum=30000,default=8000" jsonschema_description:"most characters to return in this call"`
	ContinueFrom string `json:"continue_from,omitempty" jsonschema_description:"next_token from the page-info footer of the previous call, to read on"`
}

type noArgs struct{}

// Tools returns the four web tools backed by b, and with a Keeper
// list_fetched_files and read_fetched_file.
func (b *Browser) Tools() ([]tools.Tool, error) {
	var out []tools.Tool
	add := func(t tools.Tool, err error) error {
		if err == nil {
			out = append(out, t)
		}
		return err
	}
	if err := add(tools.New("web_search",
		"Search the web. Returns a JSON list of {title, href, body}.",
		func(ctx context.Context, a searchArgs) (string, error) {
			return b.Search(ctx, a.Query, a.MaxResults), nil
		})); err != nil {
		return nil, err
	}
	if err := add(tools.New("scrape_url",
		"Read the main text of a web page. Long pages come in parts: pass the next_token of the page-info footer as continue_from to read on.",
		func(ctx context.Context, a scrapeArgs) (string, error) {
			return b.Scrape(ctx, a.URL, a.MaxChars, a.ContinueFrom), nil
		})); err != nil {
		return nil, err
	}
	if err := add(tools.New("pdf_to_text",
		"Read the text of a PDF at an http(s) URL, page by page (at most 25 pages a call). Pass the next_token of the page-info footer as continue_from to read on.",
		func(ctx context.Context, a pdfArgs) (string, error) {
			return b.PDF(ctx, a.URLOrPath, a.MaxChars, a.ContinueFrom), nil
		})); err != nil {
		return nil, err
	}
	if err := add(tools.New("search_and_fetch",
		"Find files of a type on the web (pdf, csv, txt, md, json, html, xml, py, js, ts, …) and read them one file at a time, each with its URL, title, type, size and character count. Pass the next_token of the page-info footer as continue_from to read on.",
		func(ctx context.Context, a filesArgs) (string, error) {
			return b.SearchAndFetch(ctx, FilesRequest{
				Query: a.Query, FileType: a.FileType, MaxResults: a.MaxResults,
				MaxChars: a.MaxChars, Token: a.ContinueFrom, Session: a.SessionID,
			}), nil
		})); err != nil {
		return nil, err
	}
	if b.deps.Keeper == nil {
		return out, nil
	}
	if err := add(tools.New("list_fetched_files",
		"List the documents (PDF, CSV, pages, …) fetched earlier in this conversation, newest first, with their file_id, title, URL, type, size and when. Reread one with read_fetched_file instead of fetching it again.",
		func(ctx context.Context, _ noArgs) (string, error) {
			return b.ListKept(ctx), nil
		})); err != nil {
		return nil, err
	}
	if err := add(tools.New("read_fetched_file",
		"Read the kept text of a document fetched earlier in this conversation (file_id from list_fetched_files), without fetching it again. Long texts come in parts: pass the next_token of the page-info footer as continue_from to read on.",
		func(ctx context.Context, a readKeptArgs) (string, error) {
			return b.ReadKept(ctx, a.FileID, a.MaxChars, a.ContinueFrom), nil
		})); err != nil {
		return nil, err
	}
	return out, nil
}
