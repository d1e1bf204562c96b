// Decode-only cost per event (no network): what the parsing layers cost on their own, fed one event per
// read as the network delivers them at one token per chunk. Deterministic enough to compare parse paths
// on a shared machine where end-to-end CPU figures swing.
import { StreamSession } from '../src/client/decode/stream-session.js';
import { LineDecoder } from '../src/client/decode/line-decoder.js';
import { SseDecoder } from '../src/client/decode/sse-decoder.js';

const WORDS = [' the', ' cat', ' sat', ' on', ' a', ' warm', ' mat', ' and', ' slept', ' well'];

type Shape = 'chat' | 'completions' | 'chat+usage' | 'chat+usage 4/chunk' | 'reasoning+usage';
const SHAPES: Shape[] = ['chat', 'completions', 'chat+usage', 'chat+usage 4/chunk', 'reasoning+usage'];

// One stream's token events as vLLM writes them; `+usage` = continuous usage stats on every chunk.
export function events(shape: Shape, n: number): Buffer[] {
  const api = shape === 'completions' ? 'completions' : 'chat';
  const usage = shape.includes('+usage');
  const per = shape.includes('4/chunk') ? 4 : 1;
  const field = shape.startsWith('reasoning') ? 'reasoning' : 'content';
  const head = `{"id":"chatcmpl-run1-s1-1","object":"${api === 'chat' ? 'chat.completion.chunk' : 'text_completion'}","created":1764672000,"model":"bench-model","choices":[{"index":0,`;
  const out: Buffer[] = [];
  for (let i = 0; i < n; i++) {
    let w = '';
    for (let k = 0; k < per; k++) w += WORDS[(i * per + k) % WORDS.length];
    const t = JSON.stringify(w);
    const delta = api === 'chat' ? `"delta":{"${field}":${t}},` : `"text":${t},`;
    const u = usage
      ? `,"usage":{"prompt_tokens":100,"total_tokens":${100 + (i + 1) * per},"completion_tokens":${(i + 1) * per}}`
      : '';
    out.push(Buffer.from(`data: ${head}${delta}"logprobs":null,"finish_reason":null}]${u}}\n\n`));
  }
  return out;
}

type Variant = (reads: Buffer[]) => unknown;

const variants: Record<string, Variant> = {
  'lines + SSE only': (reads) => {
    let n = 0;
    const sse = new SseDecoder(() => n++);
    const ld = new LineDecoder((l) => sse.line(l));
    for (const r of reads) ld.push(r);
  },
  'session, fast path': (reads) => {
    const s = new StreamSession();
    s.headers(200, 'text/event-stream', 0);
    for (let i = 0; i < reads.length; i++) s.data(reads[i]!, i);
  },
  'session, JSON.parse every event': (reads) => {
    const s = new StreamSession({ fastPath: false });
    s.headers(200, 'text/event-stream', 0);
    for (let i = 0; i < reads.length; i++) s.data(reads[i]!, i);
  },
  'TextDecoder + split + JSON.parse (fetch style)': (reads) => {
    const dec = new TextDecoder();
    let buf = '';
    let n = 0;
    for (const r of reads) {
      buf += dec.decode(r, { stream: true });
      const lines = buf.split('\n');
      buf = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.startsWith('data: ')) continue;
        const o = JSON.parse(line.slice(6)) as {
          choices: Array<{ delta?: { content?: string; reasoning?: string }; text?: string }>;
        };
        const c = o.choices[0];
        if (c?.delta?.content || c?.delta?.reasoning || c?.text) n++;
      }
    }
    return n;
  },
};

export function decodeBench(): Array<{ variant: string; api: string; nsPerEvent: number }> {
  const rows: Array<{ variant: string; api: string; nsPerEvent: number }> = [];
  for (const api of SHAPES) {
    const reads = events(api, 20_000);
    for (const [name, fn] of Object.entries(variants)) {
      for (let w = 0; w < 3; w++) fn(reads); // JIT warm-up
      const samples: number[] = [];
      for (let k = 0; k < 7; k++) {
        const c0 = process.cpuUsage();
        fn(reads);
        const c = process.cpuUsage(c0);
        samples.push(((c.user + c.system) * 1000) / reads.length);
      }
      samples.sort((a, b) => a - b);
      rows.push({ variant: name, api, nsPerEvent: Math.round(samples[3]!) });
    }
  }
  return rows;
}

if (process.argv[1]?.endsWith('ingest-decode.ts')) {
  for (const r of decodeBench())
    console.log(`${r.variant.padEnd(48)} ${r.api.padEnd(20)} ${String(r.nsPerEvent).padStart(6)} ns/event`);
}
