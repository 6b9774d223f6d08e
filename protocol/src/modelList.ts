/**
 * What an OpenAI-compatible server's `GET /v1/models` list tells, as every process holds it: the
 * client asks (client/src/models.ts), the daemon's providers and the extension read the answer.
 * Types only: the asking needs the network, this module needs nothing.
 */

/** The model ids a server lists, or why it could not be asked (one line, without the key). */
export type ModelList =
  { ok: true; models: string[] } | { ok: false; kind: 'unreachable' | 'auth' | 'bad_response'; error: string };

/** What a server's `GET /v1/models` says about one model, where it says anything. */
export interface ModelInfo {
  id: string;
  /** OpenRouter-style `supported_parameters` (e.g. `max_tokens`, `temperature`, `response_format`, `structured_outputs`). */
  supportedParameters?: string[];
  /** Context window in tokens: vLLM's `max_model_len`, OpenRouter's `context_length`, LM Studio's `max_context_length`. */
  contextLength?: number;
}

/** Asks a server for its model list (the client's `listModels`, handed to whoever needs one). */
export type ListModels = (baseUrl: string, o?: { apiKey?: string; timeoutMs?: number }) => Promise<ModelList>;
