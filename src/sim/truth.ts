import { createWriteStream, type WriteStream } from 'node:fs';

export interface TruthRecord {
  id: string;
  requestId?: string;
  api: 'chat' | 'completions';
  stream: boolean;
  arrivalMs: number; // the request reached the server (its body read)
  engineArrivalMs?: number; // it left the API server for the engine's queue (docs/sim.md "API server delay")
  admittedMs?: number; // the engine scheduled it (queue time: admittedMs - engineArrivalMs)
  firstTokenMs?: number;
  chunks: Array<[number, number]>; // [sendMs, tokens], token-bearing chunks only
  endMs: number;
  reason: 'length' | 'stop' | 'abort' | 'error' | 'preempted-abort' | string;
  promptTokens: number;
  cachedTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  status?: number; // HTTP status when the request was refused before streaming
  fault?: string; // injected fault that shaped this request
  error?: string; // the engine's own error that ended it (e.g. llama.cpp's full unified pool)
  stall?: { atMs: number; ms: number }; // an injected stall: nothing was written from atMs for ms
}

// Ground truth: every finished request, in memory and optionally as JSON lines.
export class TruthLog {
  private readonly records: TruthRecord[] = [];
  private readonly file: WriteStream | undefined;
  private fileError: Error | undefined;

  constructor(path?: string) {
    if (path) {
      this.file = createWriteStream(path, { flags: 'a' });
      this.file.on('error', (e) => (this.fileError = e));
    }
  }

  add(r: TruthRecord): void {
    this.records.push(r);
    this.file?.write(JSON.stringify(r) + '\n');
  }

  all(): TruthRecord[] {
    return this.records.map((r) => ({ ...r, chunks: r.chunks.slice() }));
  }

  get error(): Error | undefined {
    return this.fileError;
  }

  close(): Promise<void> {
    const f = this.file;
    if (!f) return Promise.resolve();
    return new Promise((resolve) => f.end(() => resolve()));
  }
}
