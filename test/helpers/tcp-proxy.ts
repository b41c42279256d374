import net from 'node:net';

/**
 * A TCP proxy between the processes under test and a real server (PostgreSQL, Temporal), for
 * simulating an outage without touching the server itself, which other tests share.
 *
 * - `cut('refuse')`: every open connection is reset and the listening socket closed, so new
 *   connections are refused — what clients see when the server process dies.
 * - `cut('hang')`: every open connection is reset, new ones are accepted but nothing is ever
 *   forwarded — a server that is unreachable without refusing (a partition, a full backlog).
 * - `restore()`: listens on the same port again and forwards as before.
 */
export class TcpProxy {
  readonly port: number;
  private readonly target: { host: string; port: number };
  private server: net.Server;
  private mode: 'forward' | 'hang' | 'refuse' = 'forward';
  private readonly pairs = new Set<{ client: net.Socket; upstream: net.Socket | null }>();

  private constructor(target: { host: string; port: number }, server: net.Server, port: number) {
    this.target = target;
    this.server = server;
    this.port = port;
  }

  static async start(target: { host: string; port: number }, port = 0): Promise<TcpProxy> {
    let proxy: TcpProxy | null = null;
    const server = net.createServer((socket) => proxy!.accept(socket));
    const bound = await listen(server, port);
    proxy = new TcpProxy(target, server, bound);
    return proxy;
  }

  /** Open client connections (each forwarded to the target unless the proxy hangs). */
  get connections(): number {
    return this.pairs.size;
  }

  /** Local ports of the proxy's connections to the target: PostgreSQL's `pg_stat_activity.client_port`. */
  upstreamPorts(): number[] {
    return [...this.pairs].flatMap((p) => (p.upstream?.localPort ? [p.upstream.localPort] : []));
  }

  async cut(mode: 'refuse' | 'hang' = 'refuse'): Promise<void> {
    this.mode = mode;
    for (const pair of this.pairs) this.drop(pair);
    if (mode === 'refuse' && this.server.listening) await close(this.server);
  }

  async restore(): Promise<void> {
    this.mode = 'forward';
    // The connections a hanging proxy accepted go nowhere: reset them, as a recovering network would.
    for (const pair of this.pairs) this.drop(pair);
    if (!this.server.listening) {
      this.server = net.createServer((socket) => this.accept(socket));
      await listen(this.server, this.port);
    }
  }

  async close(): Promise<void> {
    this.mode = 'refuse';
    for (const pair of this.pairs) this.drop(pair);
    if (this.server.listening) await close(this.server);
  }

  private accept(client: net.Socket): void {
    const pair: { client: net.Socket; upstream: net.Socket | null } = { client, upstream: null };
    this.pairs.add(pair);
    client.on('error', () => this.drop(pair));
    client.on('close', () => this.drop(pair));
    if (this.mode !== 'forward') {
      if (this.mode === 'refuse') this.drop(pair);
      return;
    }
    const upstream = net.connect(this.target);
    pair.upstream = upstream;
    upstream.on('error', () => this.drop(pair));
    upstream.on('close', () => this.drop(pair));
    client.pipe(upstream);
    upstream.pipe(client);
  }

  private drop(pair: { client: net.Socket; upstream: net.Socket | null }): void {
    if (!this.pairs.delete(pair)) return;
    // resetAndDestroy sends RST, as a dying server's kernel does; the peer sees ECONNRESET at once.
    pair.client.resetAndDestroy();
    pair.upstream?.resetAndDestroy();
  }
}

function listen(server: net.Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as net.AddressInfo).port);
    });
  });
}

function close(server: net.Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
