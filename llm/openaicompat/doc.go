// Package openaicompat lets yorozu run on an OpenAI-compatible model
// server — llama.cpp's llama-server, vLLM, LM Studio, KoboldCPP, or a
// hosted API such as OpenRouter or OpenAI — through the official client,
// github.com/openai/openai-go.
//
// Client speaks Ollama's API types (github.com/ollama/ollama/api), the
// lingua franca of package llm, and translates them to and from the chat
// completions protocol:
//
//   - Chat streams SSE deltas as one api.ChatResponse per chunk and ends
//     with Done (token counts from the usage the server sends when asked
//     with stream_options.include_usage). Tool calls arrive as deltas keyed
//     by index, their arguments in pieces; they are handed over whole, with
//     the server's id, on the last response. Tool results go back as "tool"
//     messages carrying that id. reasoning_content (or reasoning) deltas
//     become Message.Thinking; <think> in the content is left to the
//     pipeline, which splits it. Images become data URLs in content parts.
//     A JSON schema in Format (the structured-output fallback) becomes
//     response_format json_schema. num_predict becomes max_tokens;
//     temperature, top_p, seed, stop and the penalties map as they are;
//     Ollama-only options (num_ctx, …) are left out.
//   - List reads GET /models, Embed posts /embeddings.
//   - Show answers the model's capabilities from MODEL_CAPABILITIES when
//     the operator gave them, else from a one-time probe (a tiny request
//     offering one tool: refused with a 400 about tools means no tools).
//     Vision is never probed nor guessed from a name: only configuration
//     grants it.
//
// Errors come out as package llm's: a missing model is a
// *llm.ModelNotFoundError naming the server (no `ollama pull` there), an
// unreachable server or a 5xx or a stream cut before the answer ended wraps
// llm.ErrUnavailable, 401/403 is a *llm.KeyRefusedError naming the key's
// variable, 429 is waited out once when Retry-After is short and is
// otherwise a *llm.BusyError, an HTML page or JSON of another shape is a
// *llm.BadAnswerError naming the server, and a model that refuses images
// is a *llm.ImagesRefusedError.
package openaicompat
