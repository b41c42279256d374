import { createServer, type Server } from 'node:http';

/**
 * The merchant's own site, on an origin of its own (http://localhost:<port>): the pages a buyer is
 * sent to (success_url, cancel_url) and a page that frames an embedded checkout.
 */
export interface ShopSite {
  origin: string;
  /** Every path the browser asked for, in order. */
  visited: string[];
  close(): Promise<void>;
}

export async function startShopSite(): Promise<ShopSite> {
  const visited: string[] = [];
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    visited.push(url.pathname + url.search);
    response.setHeader('content-type', 'text/html; charset=utf-8');
    const frame = url.searchParams.get('frame');
    if (url.pathname === '/embed' && frame) {
      response.end(
        `<!doctype html><html lang="en"><title>Shop</title><h1>Shop</h1><iframe title="Checkout" src="${frame}" width="600" height="900"></iframe></html>`,
      );
      return;
    }
    response.end(`<!doctype html><html lang="en"><title>Shop</title><h1>Shop: ${url.pathname}</h1></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  return {
    origin: `http://localhost:${address.port}`,
    visited,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
