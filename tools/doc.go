// Package tools holds what the model can call: the Tool interface, tools built
// from typed Go functions, and the Registry the llm pipeline calls them through.
//
// # Tools from functions
//
// New derives a tool's JSON schema from its argument struct with
// invopop/jsonschema, the way ollama-python derives one from a signature:
//
//	type searchArgs struct {
//		Query      string `json:"query" jsonschema_description:"what to look for"`
//		MaxResults int    `json:"max_results,omitempty" jsonschema:"minimum=1,maximum=10,default=5" jsonschema_description:"how many results"`
//		Region     string `json:"region,omitempty" jsonschema:"enum=jp,enum=us"`
//		SessionID  string `json:"session_id,omitempty" tool:"hidden"`
//	}
//
// Field tags:
//   - json: the argument name; a field without omitempty (or omitzero) is required.
//   - jsonschema_description: the description the model reads. It may contain
//     commas, so prefer it to jsonschema:"description=…" (where a comma must be
//     written \,). When both are present the jsonschema one wins.
//   - jsonschema: the other keywords, comma separated: default=…, enum=… (once
//     per value), minimum/maximum, minLength/maxLength, pattern, format.
//   - tool:"hidden": the argument is left out of what the model sees but is
//     accepted when present in a call. Before-hooks fill it (see InjectCaller);
//     a value the model sends itself is dropped by Registry.Call, so the model
//     can never choose, say, another session's id.
//
// Ollama's schema type has no place for a format, bounds or a default, so they
// are appended to the description: "how many results (minimum: 1, maximum: 10,
// default: 5)".
//
// # Arguments
//
// Before the typed function runs, the raw arguments are checked against the
// schema (santhosh-tekuri/jsonschema). A bad argument is an *ArgumentError
// whose message starts with `invalid argument` and names the field, so the
// model can correct itself:
//
//	invalid argument "max_results": expected integer, got string
//
// Models are sloppy in predictable ways, so a few things are forgiven before
// validation, and only these: a numeric string for an integer or number field
// ("5" → 5; "5.0" and 5.0 → 5 for integers), "true"/"false" for a boolean
// field, a number for a string field (123 → "123"), null for an optional field
// (treated as absent, so the default applies), empty arguments (→ {}), and
// arguments sent as a JSON string holding the object. Missing optional fields
// take their default= value, otherwise Go's zero value.
//
// # Registry
//
// Registry.Call looks a tool up, runs the Before hooks (which may rewrite the
// arguments), executes the tool with panics recovered as *PanicError, then
// runs the After hooks (which may rewrite the result). Definitions lists the
// tools sorted by name so requests are deterministic. WithCaller puts who is
// calling into the context for hooks and tools.
package tools
