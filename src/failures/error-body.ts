// Every engine's error body in one reader (docs/engines.md "Error bodies"): OpenAI nested
// `{error:{message,type,code}}`, flat `{object:"error",message,type,code}` (SGLang, TensorRT-LLM, old vLLM), TGI
// `{error,error_type}` and `{error:{message,http_status_code}}`, `{"error":"Unauthorized"}`, FastAPI `{detail}`,
// plain text, empty.
export interface ErrorBody {
  message: string;
  type?: string;
  code?: string | number;
  status?: number; // an HTTP status the body itself carries (in-stream errors have no response status)
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const codeOf = (v: unknown): string | number | undefined =>
  typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) ? v : undefined;
const statusOf = (...vs: unknown[]): number | undefined => {
  for (const v of vs) if (typeof v === 'number' && Number.isInteger(v) && v >= 100 && v < 600) return v;
  return undefined;
};

function body(message: string, type: unknown, code: unknown, status: number | undefined): ErrorBody {
  const out: ErrorBody = { message };
  const t = str(type);
  if (t !== undefined) out.type = t;
  const c = codeOf(code);
  if (c !== undefined) out.code = c;
  if (status !== undefined) out.status = status;
  return out;
}

// llama.cpp's too-long refusal gives the sizes beside its message, not in it ("the request exceeds the available
// context size, try increasing it"); the message carries them so the refused prompt's length is known.
function withPromptSize(message: string, e: Obj): string {
  const n = e.n_prompt_tokens;
  const ctx = e.n_ctx;
  if (typeof n !== 'number' || message.includes(String(n))) return message;
  return `${message} (n_prompt_tokens: ${n}${typeof ctx === 'number' ? `, n_ctx: ${ctx}` : ''})`;
}

/** The error a parsed JSON value states, in the shapes engines use inside streams too; else undefined. */
export function errorOf(o: unknown): ErrorBody | undefined {
  if (!isObj(o)) return undefined;
  const e = o.error;
  if (typeof e === 'string') return body(e, o.error_type, undefined, undefined);
  if (isObj(e)) {
    const message = withPromptSize(str(e.message) ?? JSON.stringify(e), e);
    return body(message, e.type, e.code, statusOf(e.http_status_code, e.code));
  }
  if (o.object === 'error') return body(str(o.message) ?? 'error', o.type, o.code, statusOf(o.code));
  return undefined;
}

/** An HTTP error response's body text: never fails, falls back to the text itself. */
export function parseErrorBody(text: string): ErrorBody {
  const j = tryJson(text);
  const e = errorOf(j);
  if (e) return e;
  if (isObj(j)) {
    if (typeof j.message === 'string') return body(j.message, j.type, j.code, statusOf(j.code));
    if (j.detail !== undefined)
      return { message: typeof j.detail === 'string' ? j.detail : JSON.stringify(j.detail) };
  }
  const t = text.trim();
  return { message: t.startsWith('<') ? 'HTML page' : t.slice(0, 300) || '(empty body)' };
}

/** JSON when the text is a JSON object or array, else undefined. */
export function tryJson(text: string): unknown {
  const t = text.trim();
  if (!t || (t[0] !== '{' && t[0] !== '[')) return undefined;
  try {
    return JSON.parse(t) as unknown;
  } catch {
    return undefined;
  }
}
