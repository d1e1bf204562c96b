// A loopback OpenAI-style endpoint for bench:big-payload, run in its own process: it reads the whole request body
// (stamping its first and last byte), then streams a reply with one SSE event of --event-bytes of content.
// GET /stats returns the last request's stamps. Prints its URL on stdout.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const now = () => performance.timeOrigin + performance.now();
const eventBytes = Number(
  process.argv.find((a) => a.startsWith('--event-bytes='))?.split('=')[1] ?? 1_500_000,
);
let last: Record<string, number> = {};

const chunk = (content: string) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', model: 'sink', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;

const server = createServer({ noDelay: true }, (req, res) => {
  if (req.method === 'GET' && req.url === '/stats') {
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end(JSON.stringify(last));
  }
  if (req.method === 'GET') {
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end(JSON.stringify({ object: 'list', data: [{ id: 'sink', object: 'model' }] }));
  }
  const headMs = now();
  let firstMs = 0;
  let bytes = 0;
  req.on('data', (d: Buffer) => {
    if (!firstMs) firstMs = now();
    bytes += d.length;
  });
  req.on('end', () => {
    const endMs = now();
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(chunk('a'));
    const big = 'x'.repeat(eventBytes);
    const bigWriteMs = now();
    res.write(chunk(big));
    res.write(chunk('b'));
    const usage = { prompt_tokens: 1, completion_tokens: 3, total_tokens: 4 };
    res.write(
      `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', model: 'sink', choices: [{ index: 0, delta: {}, finish_reason: 'length' }] })}\n\n`,
    );
    res.write(
      `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', model: 'sink', choices: [], usage })}\n\n`,
    );
    res.end('data: [DONE]\n\n');
    last = { headMs, firstMs, endMs, bytes, bigWriteMs, eventBytes };
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
