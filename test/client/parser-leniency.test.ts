// The lean parser (src/client/transport/h1-response.ts) against llhttp, the parser undici runs (with undici's
// own checks around it): the same response bytes go to both transports and their verdicts are compared. Where
// they differ, the difference is deliberate and each is named here with its reason; everything else must get
// the same verdict (ok, or a failure of the same kind).
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamRequest, type HttpClient } from '../../src/client/stream.js';

const event = (s: string) =>
  `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: s }, finish_reason: null }] })}\n\n`;
const BODY =
  event('hi') +
  `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`;
const LEN = Buffer.byteLength(BODY);
const chunked = (eol = '\r\n') => `${LEN.toString(16)}${eol}${BODY}${eol}0${eol}${eol}`;
const head = (lines: string[], eol = '\r\n') => lines.join(eol) + eol + eol;
const SSE = 'content-type: text/event-stream';

// name -> the response bytes
const CASES: Record<string, string> = {
  'chunked, CRLF': head(['HTTP/1.1 200 OK', SSE, 'transfer-encoding: chunked']) + chunked(),
  'content-length': head(['HTTP/1.1 200 OK', SSE, `content-length: ${LEN}`]) + BODY,
  'HTTP/1.0, body to the close': head(['HTTP/1.0 200 OK', SSE]) + BODY,
  'a status line without a reason': head(['HTTP/1.1 200', SSE, `content-length: ${LEN}`]) + BODY,
  'empty lines before the status line':
    '\r\n' + head(['HTTP/1.1 200 OK', SSE, `content-length: ${LEN}`]) + BODY,
  'chunk extensions and trailers':
    head(['HTTP/1.1 200 OK', SSE, 'transfer-encoding: chunked']) +
    `${LEN.toString(16)};a=b\r\n${BODY}\r\n0\r\nx-t: 1\r\n\r\n`,
  'transfer-encoding: identity, chunked':
    head(['HTTP/1.1 200 OK', SSE, 'transfer-encoding: identity, chunked']) + chunked(),
  // refused by both
  'transfer-encoding beside content-length':
    head(['HTTP/1.1 200 OK', SSE, 'content-length: 5', 'transfer-encoding: chunked']) + chunked(),
  'differing content-lengths':
    head(['HTTP/1.1 200 OK', SSE, `content-length: ${LEN}`, `content-length: ${LEN + 1}`]) + BODY,
  'a content-length that is not a number': head(['HTTP/1.1 200 OK', SSE, 'content-length: 1x']) + BODY,
  'a negative content-length': head(['HTTP/1.1 200 OK', SSE, 'content-length: -1']) + BODY,
  'folded header lines': head(['HTTP/1.1 200 OK', SSE, 'x-a: 1', '  2', `content-length: ${LEN}`]) + BODY,
  'a space before the colon':
    head(['HTTP/1.1 200 OK', 'content-type : text/event-stream', `content-length: ${LEN}`]) + BODY,
  'a space in a header name':
    head(['HTTP/1.1 200 OK', 'content type: text/event-stream', `content-length: ${LEN}`]) + BODY,
  'bare CR line ends': head(['HTTP/1.1 200 OK', SSE, `content-length: ${LEN}`], '\r') + BODY,
  'an HTTP/2 status line': head(['HTTP/2 200 OK', SSE, `content-length: ${LEN}`]) + BODY,
  'a head of 70 KB':
    head(['HTTP/1.1 200 OK', SSE, `x-big: ${'a'.repeat(70_000)}`, `content-length: ${LEN}`]) + BODY,
  // deliberate differences (below)
  'bare LF line ends in the head':
    head(['HTTP/1.1 200 OK', SSE, 'transfer-encoding: chunked'], '\n') + chunked(),
  'bare LF line ends in the chunk framing':
    head(['HTTP/1.1 200 OK', SSE, 'transfer-encoding: chunked']) + chunked('\n'),
  'whitespace after a chunk size':
    head(['HTTP/1.1 200 OK', SSE, 'transfer-encoding: chunked']) +
    `${LEN.toString(16)} \r\n${BODY}\r\n0\r\n\r\n`,
  'a repeated, equal content-length':
    head(['HTTP/1.1 200 OK', SSE, `content-length: ${LEN}`, `content-length: ${LEN}`]) + BODY,
  'a head of 20 KB':
    head(['HTTP/1.1 200 OK', SSE, `x-big: ${'a'.repeat(20_000)}`, `content-length: ${LEN}`]) + BODY,
};

// Where the lean parser accepts what undici refuses, on purpose:
const LENIENT: Record<string, string> = {
  // RFC 9112 §2.2: a recipient MAY recognize a single LF as a line terminator; llhttp does not by default.
  'bare LF line ends in the head': 'RFC 9112 §2.2 allows it',
  'bare LF line ends in the chunk framing': 'RFC 9112 §2.2 allows it (chunk lines are lines too)',
  // Read as the start of a chunk extension (RFC 9112 §7.1.1 allows whitespace before one).
  'whitespace after a chunk size': 'RFC 9112 §7.1.1 whitespace before an extension',
  // RFC 9110 §8.6: a list of equal values MAY be taken as that value; undici's own length check refuses it.
  'a repeated, equal content-length': 'RFC 9110 §8.6 allows it',
  // undici's maxHeaderSize (16 KB) is its option, not llhttp's; the lean cap is 64 KB (a head comes once).
  'a head of 20 KB': 'undici caps heads at 16 KB, the lean client at 64 KB',
};

let server: net.Server;
let baseUrl: string;
beforeAll(async () => {
  server = net.createServer((s) => {
    s.on('error', () => undefined);
    s.once('data', (d) => {
      const name = decodeURIComponent(/x-request-id: ([^@\r]+)/.exec(d.toString('latin1'))![1]!);
      s.end(CASES[name]!);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  baseUrl = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

async function verdict(name: string, httpClient: HttpClient): Promise<string> {
  const r = await streamRequest({
    baseUrl,
    api: 'chat',
    body: {},
    requestId: `${encodeURIComponent(name)}@${httpClient}`,
    httpClient,
    charsPerTokenEstimate: 1,
  });
  return r.ok ? `ok ${r.outputTokens} tokens` : `failed (${r.error!.kind})`;
}

describe('the lean parser and llhttp (undici) on the same bytes', () => {
  for (const name of Object.keys(CASES))
    it(name, async () => {
      const lean = await verdict(name, 'lean');
      const undici = await verdict(name, 'undici');
      if (name in LENIENT) {
        expect(lean, LENIENT[name]).toBe('ok 2 tokens'); // "hi", one token a character
        expect(undici).toMatch(/^failed/);
      } else
        expect(lean.replace('stream_truncated', 'connect')).toBe(
          undici.replace('stream_truncated', 'connect'),
        );
    });
});
