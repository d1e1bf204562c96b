// The sim closing kept-alive connections the way llama.cpp's cpp-httplib does (src/sim/conn-close.ts), seen
// from a raw socket: the responses before the close are whole, the FIN carries no `Connection: close` before
// it, and with the worst timing a request written after the last response is never read and gets nothing.
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConnectionClose } from '../../src/sim/conn-close.js';
import { startSim, type SimHandle } from '../../src/sim/index.js';

let sim: SimHandle | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

function request(id: string): string {
  const body = JSON.stringify({
    model: 'sim/tiny',
    messages: [{ role: 'user', content: 'hi' }],
    max_tokens: 3,
    ignore_eos: true,
    stream: true,
  });
  return (
    `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nx-request-id: ${id}\r\n` +
    `content-length: ${body.length}\r\n\r\n${body}`
  );
}

/** One connection: what arrived after each write, and whether (and when) the server's FIN came. */
class RawConn {
  readonly sock: net.Socket;
  text = '';
  eofAt: number | undefined;
  private waiters: Array<() => void> = [];
  constructor(port: number) {
    this.sock = net.connect({ port, host: '127.0.0.1' });
    this.sock.on('data', (d) => {
      this.text += d.toString('latin1');
      this.wake();
    });
    this.sock.on('end', () => {
      this.eofAt = performance.now();
      this.wake();
    });
    this.sock.on('error', () => undefined);
  }
  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }
  until(ok: () => boolean): Promise<void> {
    return new Promise((resolve) => {
      const check = () => (ok() ? resolve() : this.waiters.push(check));
      check();
    });
  }
  /** Sends a request and waits for its whole (chunked) response, or for the FIN. */
  async exchange(id: string): Promise<string> {
    const from = this.text.length;
    this.sock.write(request(id));
    await this.until(
      () => (this.text.endsWith('0\r\n\r\n') && this.text.length > from) || this.eofAt !== undefined,
    );
    return this.text.slice(from);
  }
}

describe('sim: --close-connections', () => {
  it('parses N, N:MS and off', () => {
    expect(parseConnectionClose('2')).toEqual({ afterResponses: 2 });
    expect(parseConnectionClose('5:0.3')).toEqual({ afterResponses: 5, finMs: 0.3 });
    expect(parseConnectionClose('off')).toBeNull();
    for (const bad of ['0', '-1', 'x', '2:', '2:y'])
      expect(() => parseConnectionClose(bad)).toThrow(/close-connections/);
  });

  it('worst timing: the request after the Nth response is written, never read, and answered by the FIN alone', async () => {
    sim = await startSim({ profile: 'tiny', closeConnections: '2' });
    const c = new RawConn(Number(new URL(sim.url).port));
    const first = await c.exchange('a');
    const second = await c.exchange('b');
    for (const r of [first, second]) {
      expect(r).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(r.toLowerCase()).not.toContain('connection: close');
      expect(r).toContain('data: [DONE]');
    }
    await new Promise((r) => setTimeout(r, 50));
    expect(c.eofAt, 'no FIN while no request comes').toBeUndefined();
    const third = await c.exchange('c');
    expect(third).toBe('');
    expect(c.eofAt).toBeDefined();
    expect(sim.droppedRequests()).toBe(1);
    expect(sim.truth().map((t) => t.requestId)).toEqual(['a', 'b']);
  });

  it('N:MS: the FIN follows the Nth response on its own', async () => {
    sim = await startSim({ profile: 'tiny', closeConnections: '1:5' });
    const c = new RawConn(Number(new URL(sim.url).port));
    const r = await c.exchange('a');
    expect(r).toContain('data: [DONE]');
    await c.until(() => c.eofAt !== undefined);
    expect(sim.droppedRequests()).toBe(0);
  });

  it('off, and the default of flavors other than llamacpp: the connection stays open', async () => {
    sim = await startSim({ profile: 'tiny' });
    const c = new RawConn(Number(new URL(sim.url).port));
    for (const id of ['a', 'b', 'c', 'd']) expect(await c.exchange(id)).toContain('data: [DONE]');
    expect(c.eofAt).toBeUndefined();
    c.sock.destroy();
  });
});
