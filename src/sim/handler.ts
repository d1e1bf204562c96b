import type { SimContext } from './context.js';
import { errorFor } from './flavors/errors.js';
import { needsKey, ROUTES } from './flavors/discovery.js';
import { authorized, handleGenerate } from './generate.js';
import { jsonResponse, type SimHttpRequest, type SimHttpResponse } from './http-types.js';
import type { Writer } from './writer.js';

export function writeResponse(w: Writer, r: SimHttpResponse): void {
  const headers: Record<string, string> = { ...(r.headers ?? {}) };
  if (r.contentType) headers['content-type'] = r.contentType;
  w.head(r.status, headers);
  w.end(r.body);
}

// The handler core: one request in, bytes out through the Writer (node:http in the server, a recorder in tests).
export function handle(ctx: SimContext, req: SimHttpRequest, w: Writer): void {
  const path = req.url.split('?')[0] ?? '/';
  const method = req.method.toUpperCase();
  if (method === 'POST' && (path === '/v1/chat/completions' || path === '/v1/completions')) {
    handleGenerate(ctx, req, w, path === '/v1/chat/completions' ? 'chat' : 'completions');
    return;
  }
  if (method === 'GET' && path === '/sim/launch') {
    writeResponse(w, jsonResponse(200, { command: ctx.launchCommand ?? null }));
    return;
  }
  if (method === 'GET' && path === '/sim/hardware') {
    // What the profile simulates, which a client on this machine cannot see (its own GPUs are not these).
    writeResponse(w, jsonResponse(200, { profile: ctx.profile.name, hardware: ctx.profile.hardware }));
    return;
  }
  if (method === 'GET' && path === '/sim/lag') {
    writeResponse(w, jsonResponse(200, ctx.engine.lag.summary()));
    return;
  }
  const route = ROUTES[ctx.flavor.name][`${method} ${path}`];
  if (ctx.apiKey && needsKey(ctx.flavor.name, path, false) && !authorized(ctx, req)) {
    const e = errorFor(ctx.flavor.name, 'auth');
    writeResponse(w, {
      status: e.status,
      body: e.body,
      contentType: e.body ? 'application/json' : undefined,
    });
    return;
  }
  if (!route) {
    writeResponse(w, jsonResponse(404, { detail: 'Not Found' }));
    return;
  }
  writeResponse(w, route(ctx, req));
}
