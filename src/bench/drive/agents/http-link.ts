import { Agent, request, type ClientRequest, type IncomingMessage } from 'node:http';
import { BenchError } from '../../../errors.js';
import type { CoordinatorLink } from './agent.js';
import { parseToAgent, type FromAgent, type Hello, type ToAgent } from './protocol.js';

// An agent's link to the coordinator over its HTTP endpoint (http-hub.ts): the join response carries the
// coordinator's messages as JSON lines; sends and clock samples are short POSTs on a keep-alive connection of their
// own, so a clock sample never waits behind a batch of records.

const REQUEST_TIMEOUT_MS = 120_000;

export class HttpLink implements CoordinatorLink {
  private joinReq: ClientRequest | undefined;
  private session = '';
  private chain: Promise<void> = Promise.resolve();
  private readonly posts = new Agent({ keepAlive: true, maxSockets: 1 });
  private readonly clockAgent = new Agent({ keepAlive: true, maxSockets: 1 });
  private readonly base: URL;

  constructor(
    coordinator: string,
    private readonly token: string,
  ) {
    this.base = new URL(coordinator);
  }

  join(hello: Hello, on: { message(m: ToAgent): void; lost(reason: string): void }): Promise<void> {
    return new Promise((resolve, reject) => {
      let joined = false;
      const fail = (reason: string) => {
        if (!joined) reject(new Error(reason));
        else on.lost(reason);
        joined = false;
      };
      const req = this.post('/agents/join', false, (res) => {
        if (res.statusCode !== 200) return refused(res, reject);
        this.session = String(res.headers['x-agent-session'] ?? '');
        joined = true;
        resolve();
        let rest = '';
        res.setEncoding('utf8');
        res.on('data', (text: string) => {
          const lines = (rest + text).split('\n');
          rest = lines.pop() ?? '';
          for (const line of lines) {
            if (line.trim() === '') continue;
            let data: unknown;
            try {
              data = JSON.parse(line);
            } catch {
              return fail('the coordinator sent a line that is not JSON');
            }
            const m = parseToAgent(data);
            if (!m.ok) return fail(`the coordinator sent an unknown message (${m.error})`);
            on.message(m.value);
          }
        });
        res.on('end', () => fail('the coordinator closed the connection'));
        res.on('error', (e) => fail(e.message));
      });
      req.on('error', (e: NodeJS.ErrnoException) => fail(e.code ?? e.message));
      req.end(JSON.stringify(hello));
      this.joinReq = req;
    });
  }

  send(messages: FromAgent[]): Promise<void> {
    const body = JSON.stringify({ messages });
    const next = this.chain.then(() => this.exchange('/agents/send', body, this.posts).then(() => undefined));
    this.chain = next.catch(() => undefined);
    return next;
  }

  async time(): Promise<{ t1: number; t2: number }> {
    const r = (await this.exchange('/agents/time', '{}', this.clockAgent)) as { t1?: unknown; t2?: unknown };
    if (typeof r.t1 !== 'number' || typeof r.t2 !== 'number') throw new Error('the coordinator sent no time');
    return { t1: r.t1, t2: r.t2 };
  }

  close(): void {
    this.joinReq?.destroy();
    this.joinReq = undefined;
    this.posts.destroy();
    this.clockAgent.destroy();
  }

  private post(
    path: string,
    agent: Agent | false,
    onResponse: (res: IncomingMessage) => void,
  ): ClientRequest {
    return request(
      new URL(path, this.base),
      {
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${this.token}`,
          'content-type': 'application/json',
          ...(this.session ? { 'x-agent-session': this.session } : {}),
        },
      },
      onResponse,
    );
  }

  private exchange(path: string, body: string, agent: Agent): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const req = this.post(path, agent, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (b: Buffer) => parts.push(b));
        res.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          if ((res.statusCode ?? 0) >= 300)
            return reject(new Error(`HTTP ${res.statusCode}: ${text.slice(0, 200)}`));
          try {
            resolve(text === '' ? {} : JSON.parse(text));
          } catch {
            reject(new Error('the coordinator answered with something that is not JSON'));
          }
        });
        res.on('error', reject);
      });
      req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error('no answer from the coordinator')));
      req.on('error', reject);
      req.setNoDelay(true);
      req.end(body);
    });
  }
}

// 401 and 409 cannot be fixed by trying again (wrong token, wrong run or count); a 503 (the run has ended) can,
// once a resumed coordinator listens.
function refused(res: IncomingMessage, reject: (e: Error) => void): void {
  const parts: Buffer[] = [];
  res.on('data', (b: Buffer) => parts.push(b));
  res.on('end', () => {
    let why = `HTTP ${res.statusCode}`;
    try {
      why = (JSON.parse(Buffer.concat(parts).toString('utf8')) as { error?: string }).error ?? why;
    } catch {
      // not JSON: the status says enough
    }
    if (res.statusCode === 401 || res.statusCode === 409)
      reject(
        new BenchError('COORDINATOR_UNREACHABLE', `the coordinator refused this agent: ${why}.`, {
          hint:
            res.statusCode === 401
              ? 'Give every agent the run token of agent 0 (LLM_BENCH_AGENT_TOKEN or --agent-token-file).'
              : 'Start every agent with the same --agents and an --agent-index of 1..K-1.',
        }),
      );
    else reject(new Error(why));
  });
}
