// A started server is ready when /health or /v1/models answers 200 (docs/sweep.md "Ready"): vLLM, SGLang and
// llama.cpp answer /health (llama.cpp 503 while it loads the model), Ollama and most others /v1/models. A
// server that prints nothing useful is judged by these answers alone, never by its output.

export const READY_PATHS = ['/health', '/v1/models'] as const;

export type ReadyOutcome =
  | { ready: true; path: string; seconds: number }
  | { ready: false; why: 'timeout' | 'gone' | 'interrupted'; seconds: number };

export interface ReadyOptions {
  port: number;
  timeoutS: number;
  gone: Promise<unknown>; // the server's process group ended
  stop: AbortSignal;
  apiKey?: string | undefined; // vLLM's /v1/models wants it when the server has --api-key
  fetchFn?: typeof fetch;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });

async function answers(url: string, apiKey: string | undefined, f: typeof fetch): Promise<boolean> {
  try {
    const res = await f(url, {
      signal: AbortSignal.timeout(5000),
      ...(apiKey ? { headers: { authorization: `Bearer ${apiKey}` } } : {}),
    });
    await res.body?.cancel();
    return res.status === 200;
  } catch {
    return false;
  }
}

export async function waitReady(o: ReadyOptions): Promise<ReadyOutcome> {
  const t0 = performance.now();
  const seconds = () => (performance.now() - t0) / 1000;
  let gone = false;
  void o.gone.then(() => (gone = true));
  const f = o.fetchFn ?? fetch;
  for (let wait = 200; ; wait = Math.min(1000, wait * 1.5)) {
    if (o.stop.aborted) return { ready: false, why: 'interrupted', seconds: seconds() };
    for (const path of READY_PATHS)
      if (await answers(`http://127.0.0.1:${o.port}${path}`, o.apiKey, f))
        return { ready: true, path, seconds: seconds() };
    if (gone) return { ready: false, why: 'gone', seconds: seconds() };
    if (seconds() >= o.timeoutS) return { ready: false, why: 'timeout', seconds: seconds() };
    await sleep(Math.min(wait, Math.max(10, o.timeoutS * 1000 - seconds() * 1000)), o.stop);
  }
}
