import { describe, expect, it } from 'vitest';
import { H1ResponseParser, type H1Head } from '../../src/client/transport/h1-response.js';
import { createRng } from '../../src/prompts/rng.js';

interface Parsed {
  head: H1Head | undefined;
  heads: number;
  body: string;
  complete: boolean;
  consumed: number; // bytes read before the parser stopped
  error: string | undefined;
  eof?: boolean;
}

// Feeds `raw` in the given reads (cut offsets); each read is its own buffer with foreign bytes around the
// range, so in-place body ranges that leak past their end would show.
function parse(raw: Buffer, cuts: number[] = [], close = false): Parsed {
  const parts: Buffer[] = [];
  let heads = 0;
  const p = new H1ResponseParser({
    onHead: () => heads++,
    onBody: (b, s, e) => parts.push(Buffer.from(b.subarray(s, e))),
  });
  let pos = 0;
  let consumed = 0;
  for (const cut of [...cuts, raw.length]) {
    if (cut <= pos) continue;
    const read = Buffer.concat([Buffer.from('##'), raw.subarray(pos, cut), Buffer.from('##')]);
    const stop = p.push(read, 2, read.length - 2);
    consumed += stop - 2;
    pos = cut;
    if (stop < read.length - 2) break;
  }
  const eof = close ? p.eof() : undefined;
  const out: Parsed = {
    head: p.head,
    heads,
    body: Buffer.concat(parts).toString('utf8'),
    complete: p.complete,
    consumed,
    error: p.error,
  };
  if (eof !== undefined) out.eof = eof;
  return out;
}

/** The same parse whole, byte by byte, and split in two at every position. */
function everySplit(raw: Buffer, close = false): Parsed {
  const whole = parse(raw, [], close);
  expect(
    parse(
      raw,
      Array.from({ length: raw.length }, (_, i) => i + 1),
      close,
    ),
  ).toEqual(whole);
  for (let i = 1; i < raw.length; i++) expect(parse(raw, [i], close)).toEqual(whole);
  return whole;
}

const b = (s: string) => Buffer.from(s, 'utf8');
const sseBody = 'data: {"choices":[{"delta":{"content":"hé"}}]}\n\ndata: [DONE]\n\n';
const chunked = (pieces: string[], ext = '') =>
  pieces.map((x) => `${Buffer.byteLength(x).toString(16)}${ext}\r\n${x}\r\n`).join('') + `0\r\n\r\n`;

describe('H1ResponseParser', () => {
  it('reads a chunked SSE response (uvicorn) at every split, in place, and stops at its end', () => {
    const head =
      'HTTP/1.1 200 OK\r\ndate: Thu, 03 Dec 2026 22:00:00 GMT\r\nserver: uvicorn\r\n' +
      'content-type: text/event-stream; charset=utf-8\r\ntransfer-encoding: chunked\r\n\r\n';
    const pieces = [sseBody.slice(0, 48), sseBody.slice(48)];
    const raw = b(head + chunked(pieces));
    const r = everySplit(raw);
    expect(r.error).toBeUndefined();
    expect(r.complete).toBe(true);
    expect(r.heads).toBe(1);
    expect(r.body).toBe(sseBody);
    expect(r.consumed).toBe(raw.length);
    expect(r.head).toEqual({
      status: 200,
      keepAlive: true,
      headers: {
        date: 'Thu, 03 Dec 2026 22:00:00 GMT',
        server: 'uvicorn',
        'content-type': 'text/event-stream; charset=utf-8',
        'transfer-encoding': 'chunked',
      },
    });
  });

  it('reads chunk extensions, upper-case hex, trailers and a following response left unread', () => {
    const big = 'x'.repeat(300);
    const raw = b(
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n' +
        `12C;name=value\r\n${big}\r\n` +
        '0\r\nX-Trailer: 1\r\nX-Other: 2\r\n\r\n',
    );
    const next = b('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n');
    const r = everySplit(raw);
    expect(r.body).toBe(big);
    expect(r.complete).toBe(true);
    const both = parse(Buffer.concat([raw, next]));
    expect(both.consumed).toBe(raw.length); // the caller sees the extra bytes and drops the connection
  });

  it('reads a content-length error body (4xx JSON) and completes exactly at its length', () => {
    const json = '{"error":{"message":"too long","type":"BadRequestError","code":400}}';
    const raw = b(
      `HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: ${json.length}\r\n\r\n${json}`,
    );
    const r = everySplit(raw);
    expect(r.head?.status).toBe(400);
    expect(r.head?.headers['content-type']).toBe('application/json');
    expect(r.body).toBe(json);
    expect(r.complete).toBe(true);
    expect(r.head?.keepAlive).toBe(true);
  });

  it('a body without length ends at the close and leaves the connection unusable', () => {
    const raw = b('HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n' + sseBody);
    const open = everySplit(raw);
    expect(open.complete).toBe(false);
    expect(open.body).toBe(sseBody);
    const closed = everySplit(raw, true);
    expect(closed.eof).toBe(true);
    expect(closed.complete).toBe(true);
    expect(closed.head?.keepAlive).toBe(false);
  });

  it('a close before the end of a chunked or sized body, or before the head, is not an end', () => {
    const cut = b('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nab');
    expect(parse(cut, [], true)).toMatchObject({ eof: false, complete: false, body: 'ab' });
    const sized = b('HTTP/1.1 500 Internal Server Error\r\ncontent-length: 10\r\n\r\n{"e"');
    expect(parse(sized, [], true)).toMatchObject({ eof: false, complete: false, body: '{"e"' });
    expect(parse(b('HTTP/1.1 200 O'), [], true)).toMatchObject({ eof: false, head: undefined });
  });

  it('Connection: close and HTTP/1.0 end keep-alive', () => {
    const close = everySplit(
      b('HTTP/1.1 429 Too Many Requests\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}'),
    );
    expect(close.head?.keepAlive).toBe(false);
    expect(close.complete).toBe(true);
    const old = everySplit(b('HTTP/1.0 200 OK\r\ncontent-length: 2\r\n\r\nok'));
    expect(old.head?.keepAlive).toBe(false);
    const oldKept = parse(b('HTTP/1.0 200 OK\r\nconnection: Keep-Alive\r\ncontent-length: 2\r\n\r\nok'));
    expect(oldKept.head?.keepAlive).toBe(true);
  });

  it("reads the server's keep-alive timeout (cpp-httplib: Keep-Alive: timeout=5, max=100)", () => {
    const r = parse(b('HTTP/1.1 200 OK\r\nKeep-Alive: timeout=5, max=100\r\nContent-Length: 0\r\n\r\n'));
    expect(r.head?.keepAliveTimeoutMs).toBe(5000);
    expect(r.complete).toBe(true);
  });

  it('skips 1xx heads, and 204/304 have no body', () => {
    const r = everySplit(
      b(
        'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nhi',
      ),
    );
    expect(r).toMatchObject({ heads: 1, body: 'hi', complete: true });
    expect(r.head?.status).toBe(200);
    const none = everySplit(b('HTTP/1.1 204 No Content\r\n\r\n'));
    expect(none).toMatchObject({ heads: 1, body: '', complete: true });
    expect(none.head?.status).toBe(204);
  });

  it('accepts bare LF line ends and an empty line before the status line; joins repeated headers', () => {
    const r = everySplit(
      b('\r\nHTTP/1.1 200 OK\nset-cookie: a\nSet-Cookie: b\ntransfer-encoding: chunked\n\n2\nok\n0\n\n'),
    );
    expect(r).toMatchObject({ body: 'ok', complete: true });
    expect(r.head?.headers['set-cookie']).toBe('a, b');
  });

  it('keeps the first Content-Type of repeated ones (as undici does), and a header named __proto__ is a header', () => {
    const r = everySplit(
      b(
        'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nContent-Type: application/json\r\n' +
          '__proto__: x\r\nconstructor: y\r\ncontent-length: 2\r\n\r\nok',
      ),
    );
    expect(r.head?.headers['content-type']).toBe('text/event-stream');
    expect(r.head?.headers['__proto__']).toBe('x');
    expect(r.head?.headers['constructor']).toBe('y');
  });

  it('a zero content-length completes at the head', () => {
    const r = everySplit(b('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n'));
    expect(r).toMatchObject({ body: '', complete: true });
  });

  const bad: Array<[string, string, RegExp]> = [
    ['a status line that is not HTTP/1.x', 'HTTP/2 200\r\n\r\n', /invalid status line/],
    ['a header without a colon', 'HTTP/1.1 200 OK\r\nbroken\r\n\r\n', /invalid header line/],
    ['folded header lines', 'HTTP/1.1 200 OK\r\na: 1\r\n  2\r\n\r\n', /folding/],
    [
      'a non-numeric content-length',
      'HTTP/1.1 200 OK\r\ncontent-length: 1x\r\n\r\n',
      /invalid content-length/,
    ],
    [
      'differing content-lengths',
      'HTTP/1.1 200 OK\r\ncontent-length: 1\r\ncontent-length: 2\r\n\r\n',
      /content-length/,
    ],
    [
      'a chunk size that is not hex',
      'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n',
      /invalid chunk size/,
    ],
    [
      'a chunk longer than its size',
      'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nabc\r\n',
      /longer than its size/,
    ],
    [
      'a huge chunk size',
      'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n1000000000000\r\n',
      /too large/,
    ],
    ['a 101 upgrade', 'HTTP/1.1 101 Switching Protocols\r\n\r\n', /101/],
    [
      'transfer-encoding beside content-length (RFC 9112 §6.3: an error, as llhttp has it)',
      'HTTP/1.1 200 OK\r\ncontent-length: 99\r\ntransfer-encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n',
      /both transfer-encoding and content-length/,
    ],
  ];
  for (const [what, raw, msg] of bad)
    it(`stops with an error at ${what}, at every split`, () => {
      const r = everySplit(b(raw));
      expect(r.error).toMatch(msg);
      expect(r.complete).toBe(false);
    });

  it('stops a head that never ends at the size cap, and an endless trailer', () => {
    const long = b(`HTTP/1.1 200 OK\r\nx: ${'a'.repeat(70 * 1024)}`);
    expect(parse(long, [10, 30_000, 60_000]).error).toMatch(/head exceeds/);
    const trailer = b(
      `HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n0\r\nx: ${'a'.repeat(70 * 1024)}`,
    );
    expect(parse(trailer).error).toMatch(/trailers too long/);
  });

  it('a long SSE response in random reads gives the whole body; random bytes never throw nor hang', () => {
    const rng = createRng(12);
    const events = Array.from({ length: 300 }, (_, i) => `data: {"i":${i},"t":"${'é'.repeat(i % 7)}"}\n\n`);
    const pieces: string[] = [];
    for (let i = 0; i < events.length;) {
      const n = 1 + Math.floor(rng() * 4);
      pieces.push(events.slice(i, i + n).join(''));
      i += n;
    }
    const raw = b('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n' + chunked(pieces, ';x=1'));
    for (let round = 0; round < 50; round++) {
      const cuts: number[] = [];
      for (let p = 0; p < raw.length;) cuts.push((p += 1 + Math.floor(rng() * 40)));
      expect(parse(raw, cuts)).toMatchObject({ body: events.join(''), complete: true, consumed: raw.length });
    }
    for (let round = 0; round < 200; round++) {
      const junk = Buffer.from(
        Array.from({ length: 1 + Math.floor(rng() * 300) }, () => Math.floor(rng() * 256)),
      );
      // a valid head first half the time, so the body states see junk too
      const input =
        round % 2 ? Buffer.concat([b('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n'), junk]) : junk;
      const r = parse(input, [Math.floor(rng() * input.length)], true);
      // it stops short of its input only at the response's end or at an error
      if (r.consumed < input.length) expect(r.complete || r.error !== undefined).toBe(true);
    }
  });
});
