// A TCP proxy on 127.0.0.1 that holds what the server sends and passes it on in bursts, as a buffering gateway
// does (docs/method.md "Streams held back between client and server"): each connection's bytes from the server
// go out every `flushEveryMs` in one write (a timer per connection, from its open), and at once when the server
// closes. The request goes through untouched.
import net from 'node:net';

export interface CoalescingProxy {
  url: string; // http://127.0.0.1:PORT
  baseUrl: string; // .../v1
  flushes: number; // writes to clients so far, over all connections
  close(): Promise<void>;
}

export async function startCoalescingProxy(
  upstreamPort: number,
  flushEveryMs: number,
): Promise<CoalescingProxy> {
  const sockets = new Set<net.Socket>();
  const state = { flushes: 0 };
  const server = net.createServer((client) => {
    const upstream = net.connect(upstreamPort, '127.0.0.1');
    client.setNoDelay(true);
    sockets.add(client).add(upstream);
    let held: Buffer[] = [];
    const flush = () => {
      if (held.length === 0 || client.destroyed) return;
      client.write(held.length === 1 ? held[0]! : Buffer.concat(held));
      held = [];
      state.flushes++;
    };
    const timer = setInterval(flush, flushEveryMs);
    const done = () => {
      clearInterval(timer);
      sockets.delete(client);
      sockets.delete(upstream);
    };
    let ended = false;
    upstream.on('data', (d: Buffer) => held.push(d));
    upstream.on('end', () => {
      ended = true;
      flush();
      client.end(); // after the held bytes: a destroy would drop what is still being written
    });
    client.on('data', (d: Buffer) => upstream.write(d));
    client.on('end', () => upstream.end());
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    upstream.on('close', () => {
      done();
      if (!ended) client.destroy();
    });
    client.on('close', () => {
      done();
      upstream.destroy();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  return {
    url,
    baseUrl: `${url}/v1`,
    get flushes() {
      return state.flushes;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
