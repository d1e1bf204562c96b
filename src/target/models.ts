import { BenchError } from '../errors.js';
import type { HttpFailure } from '../client/http.js';
import { connectWords } from '../client/connect-words.js';
import type { ModelEntry, ModelsListing, ProbeContext } from './types.js';

// GET /v1/models is the one call every OpenAI-compatible server answers; its failure decides the probe error.
export async function listModels(ctx: ProbeContext): Promise<ModelsListing> {
  const r = await ctx.get('/v1/models');
  const where = `${ctx.root}/v1/models`;
  if (!r.ok && r.kind !== 'http_status') throw unreachable(ctx.root, r);
  if (!r.ok && (r.status === 401 || r.status === 403)) {
    const msg = r.error?.message;
    throw new BenchError(
      'AUTH_FAILED',
      `the server refused ${ctx.apiKey ? 'the API key' : 'a request without an API key'} (HTTP ${r.status}${msg && msg !== '(empty body)' ? `: ${msg}` : ''}).`,
      {
        hint: ctx.apiKey
          ? 'Check --api-key / --api-key-file / OPENAI_API_KEY.'
          : 'Pass the key with --api-key, --api-key-file or OPENAI_API_KEY.',
      },
    );
  }
  if (!r.ok && (r.status === 502 || r.status === 503 || r.status === 504)) {
    // llama.cpp answers 503 on every path while loading; a proxy answers 502/504 while the engine is down.
    const msg = r.error?.message ?? '';
    throw new BenchError(
      'TARGET_UNREACHABLE',
      `${where} is not ready (HTTP ${r.status}: ${msg.slice(0, 200)}).`,
      {
        hint: 'Wait until the server has finished loading, then retry.',
      },
    );
  }
  if (!r.ok || r.body === undefined) {
    const text = r.text ?? '';
    const what =
      /html/i.test(r.contentType ?? '') || text.trimStart().startsWith('<')
        ? 'an HTML page'
        : `HTTP ${r.status}`;
    // The path is already the one every OpenAI-compatible server answers: what is usually wrong is the port (a
    // web UI, a proxy's login page) or a path prefix the server sits under.
    const port = new URL(ctx.root).port || (ctx.root.startsWith('https:') ? '443' : '80');
    throw new BenchError(
      'NOT_OPENAI_COMPATIBLE',
      `${where} answered with ${what}, not an OpenAI model list.`,
      {
        hint:
          what === 'an HTML page'
            ? `Check that port ${port} is the LLM server's own, not a web UI or a proxy in front of it.`
            : `Check the port (${port}) and any path the server sits under, before /v1 in --base-url.`,
      },
    );
  }
  const listing = toListing(r.body);
  if (!listing) {
    throw new BenchError('NOT_OPENAI_COMPATIBLE', `${where} did not return an OpenAI model list.`, {
      hint: 'Point --base-url at an OpenAI-compatible server (vLLM, SGLang, llama.cpp, TGI, Ollama, TensorRT-LLM).',
    });
  }
  if (listing.models.length === 0) {
    throw new BenchError('MODEL_NOT_FOUND', `${where} lists no models.`, {
      hint: 'Load a model on the server first.',
    });
  }
  return listing;
}

function toListing(json: unknown): ModelsListing | undefined {
  // TGI answers with a bare array (docs/engines.md); everyone else with {object:"list", data:[...]}.
  const bare = Array.isArray(json);
  const data = bare ? json : (json as { data?: unknown }).data;
  if (!Array.isArray(data)) return undefined;
  const models: ModelEntry[] = [];
  for (const item of data) {
    if (!item || typeof item !== 'object') continue;
    const raw = item as Record<string, unknown>;
    if (typeof raw.id !== 'string') continue;
    models.push({ id: raw.id, ownedBy: typeof raw.owned_by === 'string' ? raw.owned_by : undefined, raw });
  }
  return { models, shape: bare ? 'bare-array' : 'openai-list' };
}

export function pickModel(listing: ModelsListing, asked: string | undefined, preferred?: string): ModelEntry {
  if (asked !== undefined) {
    const hit = listing.models.find((m) => m.id === asked);
    if (hit) return hit;
    const served = listing.models.map((m) => m.id);
    throw new BenchError('MODEL_NOT_FOUND', `model "${asked}" is not served here.`, {
      hint: `Served: ${served.slice(0, 10).join(', ')}${served.length > 10 ? ', ...' : ''}. Pass one with --model.`,
    });
  }
  return listing.models.find((m) => m.id === preferred) ?? listing.models[0]!;
}

function unreachable(root: string, r: HttpFailure): BenchError {
  const why =
    r.kind === 'timeout'
      ? 'did not answer in time'
      : r.code === 'ENOTFOUND' || r.code === 'EAI_AGAIN'
        ? 'host name does not resolve'
        : (connectWords(r.code) ?? `cannot connect (${r.message})`);
  return new BenchError('TARGET_UNREACHABLE', `${root}: ${why}.`, {
    hint: 'Check that the server is running and --base-url (host and port) is right.',
  });
}
