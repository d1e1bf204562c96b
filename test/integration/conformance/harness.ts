// The conformance matrix against real HTTP stacks (test/helpers/real-stacks): every stack, both transports,
// the same legs; the bar is the same everywhere: no request lost, every token counted, TTFT as the server's
// own log says. Each stack's file calls conformance() with how to start it; the figures of every leg are
// written to test-artifacts/conformance/<stack>.json (and printed) for the reader.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { streamRequest, type HttpClient } from '../../../src/client/stream.js';
import type { RequestRecord } from '../../../src/client/types.js';
import type { FixtureTruth, RealStack } from '../../helpers/real-stacks/index.js';

export const TRANSPORTS: readonly HttpClient[] = ['lean', 'undici'];

/**
 * A server configuration of the stack under test: 'main' (its defaults) runs the sequential, burst and framing
 * legs; 'idle' (an idle keep-alive timeout of 1 s instead of its default: uvicorn's and cpp-httplib's 5 s would
 * make the leg long) runs the idle leg; any other (the server ends every connection after one response, or
 * after two without saying so as llama-server does, or a proxy setting) runs one slot and 64 streams.
 */
export type Variant = string;

export interface StackUnderTest {
  name: string;
  start(variant: Variant): Promise<RealStack>;
  variants: readonly Variant[];
  /** A streamed request body for `tokens` tokens (the fixtures' script, or the sim's). */
  body(tokens: number, extra?: { framing?: 'length'; close?: 1 }): Record<string, unknown>;
  /**
   * An origin fixture: its truth log stamps the writes the client reads, and it can answer with Connection:
   * close and with a Content-Length body. A proxy's truth is the sim's behind it: what the proxy adds to the
   * delivery is the proxy's, not the client's error, and is reported, not held to the 1 ms bar.
   */
  origin: boolean;
  /** The idle variant's keep-alive timeout, in s. */
  keepAliveS: number;
  /** Legs left out, with why (said in the artifact). */
  skip?: Partial<Record<string, string>>;
}

export interface LegFigures {
  stack: string;
  variant: Variant;
  leg: string;
  transport: HttpClient;
  streams: number;
  requests: number;
  lost: number;
  resent: number;
  tokensMissing: number;
  /** ms, p50 over requests: client TTFT minus the server's (first token write - request arrival). */
  ttftErrorP50: number | null;
  /** ms, p50 and max: the client's read of the first token minus the server's write of it. */
  receiveP50: number | null;
  receiveMax: number | null;
  load: number;
}

const p50 = (xs: number[]): number | null => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)]!;
};
const r3 = (x: number | null) => (x === null ? null : Math.round(x * 1000) / 1000);

/** Runs `streams` slots, each sending `perSlot` requests one after another; `gapsMs` pause a slot before each. */
async function drive(
  s: RealStack,
  transport: HttpClient,
  id: string,
  body: Record<string, unknown>,
  streams: number,
  perSlot: number,
  gapsMs: readonly number[] = [],
): Promise<Array<{ id: string; r: RequestRecord }>> {
  const out: Array<{ id: string; r: RequestRecord }> = [];
  await Promise.all(
    Array.from({ length: streams }, async (_, slot) => {
      for (let k = 0; k < perSlot; k++) {
        const gap = gapsMs[k] ?? 0;
        if (gap > 0) await new Promise((r) => setTimeout(r, gap));
        const requestId = `${id}-${slot}-${k}`;
        const r = await streamRequest({
          baseUrl: s.baseUrl,
          api: 'chat',
          body,
          requestId,
          httpClient: transport,
        });
        out.push({ id: requestId, r });
      }
    }),
  );
  return out;
}

function figures(
  meta: Omit<
    LegFigures,
    'requests' | 'lost' | 'resent' | 'tokensMissing' | 'ttftErrorP50' | 'receiveP50' | 'receiveMax' | 'load'
  >,
  sent: Array<{ id: string; r: RequestRecord }>,
  truth: FixtureTruth[],
  tokens: number,
): LegFigures & { problems: string[]; receive: number[] } {
  const byId = new Map<string, FixtureTruth[]>();
  for (const t of truth) byId.set(t.requestId, [...(byId.get(t.requestId) ?? []), t]);
  const problems: string[] = [];
  const errors: number[] = [];
  const receive: number[] = [];
  let lost = 0;
  let missing = 0;
  for (const { id, r } of sent) {
    if (!r.ok) {
      lost++;
      problems.push(`${id}: ${r.error?.kind} ${r.error?.message}`);
      continue;
    }
    const ts = byId.get(id) ?? [];
    if (ts.length !== 1) problems.push(`${id}: ${ts.length} answers in the server's log`);
    const t = ts[0];
    if (r.outputTokens !== tokens) {
      missing += Math.abs(tokens - r.outputTokens);
      problems.push(`${id}: ${r.outputTokens} tokens counted of ${tokens}`);
    }
    if (!t || r.firstTokenAtMs === undefined || t.chunks.length === 0) continue;
    if (t.tokens !== tokens) problems.push(`${id}: the server sent ${t.tokens} tokens, not ${tokens}`);
    const rec = r.firstTokenAtMs - t.chunks[0]![0];
    receive.push(rec);
    errors.push(r.firstTokenAtMs - r.sentAtMs - (t.chunks[0]![0] - t.arrivalMs));
  }
  return {
    ...meta,
    requests: sent.length,
    lost,
    resent: sent.filter((x) => x.r.resent).length,
    tokensMissing: missing,
    ttftErrorP50: r3(p50(errors)),
    receiveP50: r3(p50(receive)),
    receiveMax: r3(receive.length ? Math.max(...receive) : null),
    load: Math.round(loadavg()[0]! * 100) / 100,
    problems,
    receive,
  };
}

export function conformance(stack: StackUnderTest): void {
  const results: LegFigures[] = [];
  const servers = new Map<Variant, Promise<RealStack>>();
  const server = (v: Variant) => {
    let p = servers.get(v);
    if (!p) {
      p = stack.start(v);
      servers.set(v, p);
    }
    return p;
  };
  afterAll(async () => {
    await Promise.all([...servers.values()].map(async (p) => (await p.catch(() => undefined))?.stop()));
    const dir = join('test-artifacts', 'conformance');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, `${stack.name}.json`),
      JSON.stringify({ skipped: stack.skip ?? {}, legs: results }, null, 2),
    );
    console.log(
      results
        .map(
          (f) =>
            `${f.stack} ${f.variant} ${f.leg} ${f.transport}: ${f.requests} requests, lost ${f.lost}, ` +
            `re-sent ${f.resent}, TTFT error p50 ${f.ttftErrorP50} ms, receive p50 ${f.receiveP50} max ` +
            `${f.receiveMax} ms (load ${f.load})`,
        )
        .join('\n'),
    );
  });

  interface Leg {
    name: string;
    variant: Variant;
    streams: number;
    perSlot: number;
    tokens: number;
    extra?: { framing?: 'length'; close?: 1 };
    gapsMs?: number[];
    bothAtOnce?: boolean; // the two transports at the same time (a leg that mostly waits)
    ttftBar?: boolean; // one stream: the client's first-token read within 1 ms of the server's write
  }
  const ka = stack.keepAliveS * 1000;
  const legs: Leg[] = [
    {
      name: 'one slot, one request after another',
      variant: 'main',
      streams: 1,
      perSlot: 24,
      tokens: 16,
      ttftBar: true,
    },
    { name: 'burst of 64 streams', variant: 'main', streams: 64, perSlot: 2, tokens: 8 },
    { name: 'burst of 256 streams', variant: 'main', streams: 256, perSlot: 2, tokens: 8 },
    {
      name: `idle gaps across the ${stack.keepAliveS} s keep-alive timeout`,
      variant: 'idle',
      streams: 1,
      perSlot: 5,
      tokens: 4,
      gapsMs: [0, ka - 100, ka, ka + 100, ka + 600],
      bothAtOnce: true,
    },
  ];
  if (stack.origin)
    legs.push(
      {
        name: 'Connection: close on every response',
        variant: 'main',
        streams: 1,
        perSlot: 8,
        tokens: 8,
        extra: { close: 1 },
      },
      {
        name: 'Content-Length bodies, one slot',
        variant: 'main',
        streams: 1,
        perSlot: 8,
        tokens: 8,
        extra: { framing: 'length' },
      },
      {
        name: 'Content-Length bodies, 64 streams',
        variant: 'main',
        streams: 64,
        perSlot: 2,
        tokens: 8,
        extra: { framing: 'length' },
      },
    );
  for (const v of stack.variants.filter((x) => x !== 'main' && x !== 'idle'))
    legs.push(
      { name: `${v}: one slot`, variant: v, streams: 1, perSlot: 12, tokens: 8 },
      { name: `${v}: 64 streams`, variant: v, streams: 64, perSlot: 2, tokens: 8 },
    );

  describe(`conformance: ${stack.name}`, () => {
    for (const leg of legs) {
      it(leg.name, async () => {
        const s = await server(leg.variant);
        const body = stack.body(leg.tokens, leg.extra);
        const slug = leg.name.replace(/[^a-z0-9]+/gi, '-');
        const run = (t: HttpClient) =>
          drive(s, t, `${stack.name}-${slug}-${t}`, body, leg.streams, leg.perSlot, leg.gapsMs);
        const sent: Record<string, Array<{ id: string; r: RequestRecord }>> = {};
        if (leg.bothAtOnce) {
          const all = await Promise.all(TRANSPORTS.map(run));
          TRANSPORTS.forEach((t, i) => (sent[t] = all[i]!));
        } else for (const t of TRANSPORTS) sent[t] = await run(t);
        await new Promise((r) => setTimeout(r, 50)); // the server's last truth lines are written
        const truth = s.truth();
        for (const t of TRANSPORTS) {
          const f = figures(
            { stack: stack.name, variant: leg.variant, leg: leg.name, transport: t, streams: leg.streams },
            sent[t]!,
            truth,
            leg.tokens,
          );
          const { problems, receive: _receive, ...kept } = f;
          results.push(kept);
          expect(problems, `${t}: ${s.output().slice(-2000)}`).toEqual([]);
          expect(f.lost).toBe(0);
          expect(f.tokensMissing).toBe(0);
          if (leg.ttftBar && stack.origin && loadavg()[0]! < cpus().length) {
            // The client's first-token read against the server's own write stamp, on one clock: the client's part
            // of the TTFT error, within 1 ms at the median while the machine has a core to spare. On a machine
            // loaded past its cores every process wakes late; the figure is then reported (the artifact), not
            // raced against a bound.
            expect(f.receiveP50!).toBeLessThanOrEqual(1);
          }
        }
      });
    }
  });
}
