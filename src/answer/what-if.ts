import { isMeasured, kvDemandTokens } from '../cell-rules.js';
import { contextLabel, fmtInt, fmtMs, fmtTokS } from '../format/index.js';
import type { DecodeCell, RunResult, ServiceLevel } from '../results/schema.js';
import { planOfResults } from '../twin/choose.js';
import { observe } from '../twin/observe.js';
import { predict, type WhatIf } from '../twin/predict.js';
import { fitTwin } from '../twin/twin.js';
import type { Answer, ContextAnswer } from './answer.js';
import { judgeCell } from './capacity.js';
import { engineSettings } from '../engines/index.js';
import { serverLimits, type ServerLimits } from './limits.js';

// The what-if of the answer's suggested change (docs/method.md "Why the limit is there"): a twin fitted on the run
// itself (src/twin, docs/twin.md), the setting changed as suggested, and the limit cell predicted and judged against
// the same service level. Only for the changes a twin models (seats, KV cache); only where the run pins a twin.
// A prediction: the reports say so beside it.

export interface WhatIfNote {
  contextTokens: number;
  text: string;
}

// The change the reason suggests, as the twin's what-if and in the engine's own words.
function change(c: ContextAnswer, lim: ServerLimits): { whatIf: WhatIf; setting: string } | undefined {
  const L = c.limit?.cell;
  const { need, kind, seats } = c.reason;
  if (!L || !need) return undefined;
  const now = (n: number | undefined) => (n !== undefined ? ` (${fmtInt(n)} now)` : '');
  if (kind === 'queue' && seats !== undefined && need.seats !== undefined)
    return {
      whatIf: { maxNumSeqs: need.seats },
      setting: `${lim.engine.setting({ seats: need.seats })} (about ${seats} now)`,
    };
  if (kind === 'seats-kv' && need.seats !== undefined && need.kvTokens !== undefined)
    return {
      whatIf: { maxNumSeqs: need.seats, kvCapacity: { tokens: need.kvTokens } },
      setting: `${c.reason.setting ?? lim.engine.setting(need)}`,
    };
  if ((kind === 'kv' || kind === 'kv-queue') && need.kvTokens !== undefined)
    return {
      whatIf: { kvCapacity: { tokens: need.kvTokens } },
      setting: `${kvPhrase(lim, need.kvTokens)}${now(lim.kvTokens)}`,
    };
  return undefined;
}

// "a KV cache of 16,640 tokens" (the engine sizes it by memory), "-c 33,536" (llama.cpp sizes it in tokens).
const kvPhrase = (lim: ServerLimits, tokens: number) =>
  lim.engine.setting({ kvTokens: tokens }).replace(/ \([^)]*\)$/, '');

/** The suggested change's effect per context, predicted by a twin of the run; empty where none can be fitted. */
export function whatIfNotes(r: RunResult, a: Answer, slo: ServiceLevel = a.slo): WhatIfNote[] {
  if (r.predicted || r.status === 'imported') return [];
  const lim = serverLimits(r);
  const changes = a.contexts.flatMap((c) => {
    const ch = change(c, lim);
    return ch ? [{ c, ...ch }] : [];
  });
  if (!changes.length) return [];
  // The what-if stays at a measured context, so a run of one context needs no context slope; a KV cache the server
  // did not report is taken to hold what ran (the queue what-if asks for no more than that).
  const contexts = new Set(r.decode.filter((d) => d.status !== 'Over capacity').map((d) => d.contextTokens));
  const ran = Math.max(
    0,
    ...r.decode
      .filter((d) => isMeasured(d.status))
      .map((d) => kvDemandTokens(d.contextTokens, d.concurrency, r.config.maxOutput)),
  );
  let twin;
  try {
    // The seats the server states pin the twin's (its launch command or API said them); llama.cpp's shared pool too.
    twin = fitTwin(observe([{ result: r, source: r.runId }]), planOfResults([r]), {
      ...(contexts.size < 2 ? { contextSlopeMsPerMTokens: 0 } : {}),
      ...(lim.kvTokens === undefined && ran > 0 ? { kvCapacityTokens: ran } : {}),
      ...(lim.kvTokens !== undefined && lim.kvTokens !== r.target.kvCapacityTokens
        ? { kvCapacityTokens: lim.kvTokens }
        : {}),
      ...(lim.seats !== undefined ? { maxNumSeqs: lim.seats } : {}),
      ...(lim.layout === 'unified' ? { kvUnified: true } : {}),
    });
  } catch {
    return []; // the run cannot pin a twin (one concurrency level, no capacity): no what-if, no guess
  }
  const e = engineSettings(r.engine.name);
  return changes.flatMap(({ c, whatIf, setting }) => {
    const C = c.contextTokens;
    const N = c.limit!.cell.concurrency;
    const at = (w: WhatIf) =>
      predict(twin.profile, twin.meta, {
        ...w,
        contexts: [C],
        prefillContexts: [C],
        concurrency: [N],
      }).decode.find((d) => d.concurrency === N && d.contextTokens === C);
    const cell = at(whatIf);
    if (!cell || cell.status === 'Over capacity') return [];
    // A limit the result cannot pin: the prediction is the most the change could give, and says what it rests on.
    const unknown = c.reason.unknown;
    const head = `${contextLabel(C)} with ${setting}: a twin of this run predicts ${unknown ? 'at most ' : ''}${figures(cell)}`;
    if (unknown && cell.status !== 'Requests queued')
      return [
        {
          contextTokens: C,
          text: `${head}, ${running(cell)}: ${verdict(cell, slo).replace(/\.$/, '')}, if the limit is what the twin assumes: ${unknown}.`,
        },
      ];
    if (cell.status !== 'Requests queued')
      return [{ contextTokens: C, text: `${head}, ${running(cell)}: ${verdict(cell, slo)}` }];
    // Still queued: the change alone cannot say whether N users meet the level, a second limit stands in the way.
    // Name it, and predict both changes together.
    const seats = twin.meta.maxNumSeqs;
    const next: { whatIf: WhatIf; why: string; setting: string } =
      whatIf.maxNumSeqs === undefined && seats.pinned && seats.value < N
        ? {
            whatIf: { maxNumSeqs: N },
            why: `: the server runs ${seats.value} at once, so raise ${e.seats} too`,
            setting: lim.engine.setting({ seats: N }),
          }
        : {
            whatIf: { kvCapacity: { tokens: kvDemandTokens(C, N, r.config.maxOutput) } },
            why: ` for KV cache, so a larger one too (${e.kv[0]})`,
            setting: kvPhrase(lim, kvDemandTokens(C, N, r.config.maxOutput)),
          };
    const both = at({ ...whatIf, ...next.whatIf });
    const then =
      both && both.status !== 'Over capacity'
        ? ` With ${next.setting} as well: ${figures(both)}, ${running(both)}: ${verdict(both, slo)}`
        : '';
    return [{ contextTokens: C, text: `${head}, but requests still queue${next.why}.${then}` }];
  });
}

// "8 users at 70.7 tok/s each, first token 1 ms (580.0 total)"
function figures(cell: DecodeCell): string {
  const ttft = cell.ttftMs !== null ? `, first token ${fmtMs(cell.ttftMs)}` : '';
  return (
    `${cell.concurrency} users at ${fmtTokS(cell.perRequestTokensPerS)} tok/s each${ttft} ` +
    `(${fmtTokS(cell.totalTokensPerS)} total)`
  );
}

const running = (cell: DecodeCell) => (cell.status === 'Valid' ? 'all running at once' : cell.status);

function verdict(cell: DecodeCell, slo: ServiceLevel): string {
  const v = judgeCell(cell, slo, true).verdict;
  return `${v === 'meets' ? 'meets it' : v === 'fails' ? 'still fails it' : 'too close to call'} (median request, predicted).`;
}
