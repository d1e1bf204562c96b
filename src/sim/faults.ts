import { BenchError } from '../errors.js';
import { makeRng, mixSeed, type Rng } from './rng.js';

// Named faults (docs/sim.md "Faults"). SPEC = item[,item...]; item = name[:param...];
// param = R (a rate 0..1) | rate=R | count=N | after=N | at=TOKENS | ms=MS.
export const FAULT_NAMES = [
  'refuse',
  '401',
  '404',
  'too-long',
  '429',
  '503',
  '500',
  'cut',
  'error-event',
  'bad-json',
  'stall',
  'slow-headers',
] as const;
export type FaultName = (typeof FAULT_NAMES)[number];

const ALIASES: Record<string, FaultName> = {
  refused: 'refuse',
  unauthorized: '401',
  auth: '401',
  'not-found': '404',
  'model-not-found': '404',
  toolong: 'too-long',
  'context-too-long': 'too-long',
  overload: '429',
  'error-event': 'error-event',
  error: 'error-event',
  malformed: 'bad-json',
  'bad-json': 'bad-json',
  'malformed-json': 'bad-json',
  slow: 'slow-headers',
};

export const MID_STREAM: ReadonlySet<FaultName> = new Set(['cut', 'error-event', 'bad-json', 'stall']);

export interface FaultRule {
  name: FaultName;
  rate?: number;
  count?: number;
  after: number;
  atTokens?: number;
  ms: number;
}

export interface FaultDecision {
  name: FaultName;
  atTokens: number; // mid-stream faults act once this many tokens were sent
  ms: number;
}

export function parseFaults(spec: string | undefined): FaultRule[] {
  if (!spec || !spec.trim()) return [];
  return spec.split(',').map((raw) => parseItem(raw.trim()));
}

function bad(item: string, why: string): BenchError {
  return new BenchError('USAGE', `invalid fault "${item}": ${why}`, {
    hint: `Faults: ${FAULT_NAMES.join(', ')}; e.g. "cut:0.05,500:count=3,stall:rate=0.01:ms=2000".`,
  });
}

function parseItem(item: string): FaultRule {
  const [rawName, ...params] = item.split(':');
  const lname = (rawName ?? '').toLowerCase();
  const name = (FAULT_NAMES as readonly string[]).includes(lname) ? (lname as FaultName) : ALIASES[lname];
  if (!name) throw bad(item, `unknown fault name "${rawName ?? ''}"`);
  const rule: FaultRule = { name, after: 0, ms: 2000 };
  for (const p of params) {
    const eq = p.indexOf('=');
    const key = eq < 0 ? 'rate' : p.slice(0, eq);
    const val = Number(eq < 0 ? p : p.slice(eq + 1));
    if (!Number.isFinite(val) || val < 0) throw bad(item, `"${p}" is not a non-negative number`);
    switch (key) {
      case 'rate':
        if (val > 1) throw bad(item, 'rate must be between 0 and 1');
        rule.rate = val;
        break;
      case 'count':
        rule.count = Math.floor(val);
        break;
      case 'after':
        rule.after = Math.floor(val);
        break;
      case 'at':
        rule.atTokens = Math.max(1, Math.floor(val));
        break;
      case 'ms':
        rule.ms = val;
        break;
      default:
        throw bad(item, `unknown parameter "${key}" (rate, count, after, at, ms)`);
    }
  }
  if (rule.rate === undefined && rule.count === undefined) rule.rate = 1;
  return rule;
}

// Decides per generation request, in arrival order, which fault (if any) applies: first matching rule wins.
export class FaultPlan {
  private seen = 0;
  private readonly fired: number[];
  private readonly rng: Rng;
  constructor(
    readonly rules: FaultRule[],
    seed: number,
  ) {
    this.fired = rules.map(() => 0);
    this.rng = makeRng(mixSeed(seed, 0xfa));
  }

  decide(): FaultDecision | undefined {
    const index = this.seen++;
    for (let i = 0; i < this.rules.length; i++) {
      const r = this.rules[i]!;
      if (index < r.after) continue;
      if (r.count !== undefined && this.fired[i]! >= r.count) continue;
      // Draw for every rule so one rule's outcome does not shift another's sequence.
      const draw = this.rng();
      const hit = r.rate === undefined ? true : draw < r.rate;
      if (!hit) continue;
      this.fired[i]!++;
      return { name: r.name, atTokens: r.atTokens ?? 1 + Math.floor(this.rng() * 32), ms: r.ms };
    }
    return undefined;
  }
}
