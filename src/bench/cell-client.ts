import { pinCellChunkTokens } from '../client/attribution.js';
import { clientCellFigures } from '../client/cell-figures.js';
import type { ClientLoad } from '../client/self-check.js';
import type { DecodeCell } from '../results/schema.js';
import type { MeasureWindow } from '../stats/window.js';
import type { Sent } from './drive/sender.js';

// What a cell's client knows beyond its window figures, after the window closed (off the timed path): the
// estimated token splits pinned with the server's tokenizer where it has one, then whether the client itself was
// the bottleneck and how far the window's token count can be trusted.

export type Tokenize = (text: string) => Promise<number | undefined>;

// Requests whose per-chunk counts are a character split, re-counted chunk by chunk; chunk texts are dropped
// afterwards either way (they were kept only for this, and the request log never carries them).
export async function pinEstimatedChunks(
  sent: readonly Sent[],
  tokenize: Tokenize | undefined,
): Promise<Sent[]> {
  const estimated = sent.some((x) => x.record.chunkAttribution === 'estimated' && x.record.chunkTexts);
  let records = sent.map((x) => x.record);
  if (estimated && tokenize) records = await pinCellChunkTokens(records, tokenize);
  return sent.map((x, i) => {
    const { chunkTexts: _texts, ...record } = records[i]!;
    return { ...x, record };
  });
}

export function withClientFigures(
  cell: DecodeCell,
  sent: readonly Sent[],
  window: MeasureWindow,
  load: ClientLoad | undefined,
): DecodeCell {
  const f = clientCellFigures(
    sent.map((x) => x.record),
    window,
    { ...(load ? { load } : {}), tbtMs: cell.tbtMs },
  );
  cell.chunkAttribution = f.chunkAttribution;
  if (f.windowTokenErrorBound > 0) cell.windowTokenErrorBound = f.windowTokenErrorBound;
  if (f.client) {
    const { wallMs: _wall, ...client } = f.client;
    cell.client = client;
  }
  return cell;
}
