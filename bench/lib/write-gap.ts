// The call -> write gap of the streaming client (send time = write time): how long undici holds a
// request back after streamRequest is called, on fresh sockets (connect) and on reused keep-alive sockets
// (idle-socket validation defers the write to a later event-loop turn). Closed loops of N streams against
// the sim in its own process; bounded by time and by request count.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Agent } from 'undici';
import { streamRequest } from '../../src/client/stream.js';
import { OUT_DIR, quantile } from './out.js';
import { benchProfile } from './profiles.js';
import { startSimChild } from './sim-child.js';

export interface WriteGapRow {
  streams: number;
  requests: number;
  'fresh gap p50 ms': number | null;
  'reused gap p50 ms': number | null;
  'reused gap p90 ms': number | null;
  'reused gap p99 ms': number | null;
  'reused gap max ms': number | null;
}

export async function measureWriteGap(o: {
  streams: number[];
  seconds: number;
  maxTokens?: number;
  stepMs?: number;
}): Promise<WriteGapRow[]> {
  const most = Math.max(...o.streams);
  mkdirSync(OUT_DIR, { recursive: true });
  const sim = await startSimChild({
    profile: benchProfile({ stepMs: o.stepMs ?? 20, maxNumSeqs: most }),
    profileFile: join(OUT_DIR, `write-gap-${Date.now()}.profile.json`),
  });
  const rows: WriteGapRow[] = [];
  try {
    for (const n of o.streams) rows.push(await level(sim.baseUrl, n, o.seconds, o.maxTokens ?? 16));
  } finally {
    await sim.stop();
  }
  return rows;
}

async function level(baseUrl: string, n: number, seconds: number, maxTokens: number): Promise<WriteGapRow> {
  const dispatcher = new Agent({ headersTimeout: 0, bodyTimeout: 0, keepAliveTimeout: 30_000 });
  const fresh: number[] = [];
  const reused: number[] = [];
  const until = performance.now() + seconds * 1000;
  const cap = 200 * n; // a bound on count as well as time
  let sent = 0;
  const slot = async (i: number) => {
    let first = true;
    while (performance.now() < until && sent < cap) {
      sent++;
      const r = await streamRequest({
        baseUrl,
        api: 'chat',
        body: {
          model: 'sim/bench',
          messages: [{ role: 'user', content: `slot ${i}` }],
          max_tokens: maxTokens,
        },
        dispatcher,
      });
      if (r.calledAtMs !== undefined && r.ok) (first ? fresh : reused).push(r.sentAtMs - r.calledAtMs);
      first = false;
    }
  };
  try {
    await Promise.all(Array.from({ length: n }, (_, i) => slot(i)));
  } finally {
    await dispatcher.close();
  }
  return {
    streams: n,
    requests: fresh.length + reused.length,
    'fresh gap p50 ms': quantile(fresh, 0.5),
    'reused gap p50 ms': quantile(reused, 0.5),
    'reused gap p90 ms': quantile(reused, 0.9),
    'reused gap p99 ms': quantile(reused, 0.99),
    'reused gap max ms': reused.length ? Math.max(...reused) : null,
  };
}
