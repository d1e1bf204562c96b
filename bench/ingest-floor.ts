// The floor: a raw node:net HTTP/1.1 client with a hand-written chunked/SSE scan that only counts token
// events. It does nothing a real client must (no JSON, no errors, no usage): the cost no client can beat.
import net from 'node:net';
import { setMaxListeners } from 'node:events';
import { nowMs } from '../src/clock.js';
import type { Client } from './ingest-clients.js';

const pool: net.Socket[] = [];

export const rawNetFloor: Client = (c) =>
  new Promise((resolve) => {
    const u = new URL(c.baseUrl);
    const chunks: Array<[number, number]> = [];
    let sentAtMs = 0;
    const sock = pool.pop() ?? net.connect({ host: u.hostname, port: Number(u.port), noDelay: true });
    let headerDone = false;
    let finished = false;
    const done = (reuse: boolean) => {
      if (finished) return;
      finished = true;
      sock.removeListener('data', onData);
      if (reuse) pool.push(sock);
      else sock.destroy();
      resolve({ chunks, sentAtMs });
    };
    const onData = (d: Buffer) => {
      const t = nowMs();
      let p = 0;
      if (!headerDone) {
        const h = d.indexOf('\r\n\r\n');
        if (h === -1) return;
        headerDone = true;
        p = h + 4;
      }
      // Count "content":"x / "text":"x / "reasoning...":"x events; the terminal chunk is "0\r\n\r\n".
      for (let i = d.indexOf('data: {', p); i !== -1; i = d.indexOf('data: {', i + 7)) {
        const e = d.indexOf('\n', i);
        const line = d.subarray(i, e === -1 ? d.length : e);
        if (
          line.indexOf('"content":"') !== -1 ||
          line.indexOf('"text":"') !== -1 ||
          line.indexOf('"reasoning') !== -1
        ) {
          if (line.indexOf('"content":""') === -1) chunks.push([t, 1]);
        }
      }
      if (d.length >= 5 && d.indexOf('0\r\n\r\n', d.length - 5) !== -1) done(true);
    };
    sock.on('data', onData);
    sock.once('error', () => done(false));
    setMaxListeners(0, c.signal);
    c.signal.addEventListener('abort', () => done(false));
    const body = JSON.stringify({ ...c.body, stream: true });
    const path = u.pathname + (c.api === 'chat' ? '/chat/completions' : '/completions');
    const msg = `POST ${path} HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: application/json\r\nX-Request-Id: ${c.requestId}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    // Stamped where the bytes go to the socket: at the connect for a fresh one (before net's queued write).
    const stamp = () => (sentAtMs = nowMs());
    if (sock.connecting) sock.once('connect', stamp);
    else stamp();
    sock.write(msg);
  });
