import { afterAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { isPortOpen } from '../../scripts/processes.ts';
import { SEARCH_ATTRIBUTES } from '../../scripts/temporal-cli.ts';
import { startTemporalDevServer, type TemporalDevServer } from '../../scripts/temporal-dev-server.ts';
import { temporalCliPath, temporalTestServerPath } from '../../scripts/tool-paths.ts';

/** 7299 when free, otherwise any free port handed out by the OS. */
async function freePort(preferred: number): Promise<number> {
  if (!(await isPortOpen('127.0.0.1', preferred))) return preferred;
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

describe('Temporal tooling', () => {
  let server: TemporalDevServer | null = null;

  afterAll(async () => {
    await server?.stop();
  });

  it('starts a dev server with the search attributes registered, and stops it', async () => {
    const cli = temporalCliPath();
    expect(cli).not.toBeNull();
    const port = await freePort(7299);

    server = await startTemporalDevServer({ port, uiPort: port + 1000, ui: false });
    expect(server.address).toBe(`127.0.0.1:${port}`);
    expect(server.uiUrl).toBeNull();
    expect(await isPortOpen('127.0.0.1', port)).toBe(true);

    const output = execFileSync(
      cli!,
      [
        'operator',
        'search-attribute',
        'list',
        '--address',
        server.address,
        '--disable-config-file',
        '--disable-config-env',
      ],
      { encoding: 'utf8' },
    );
    for (const name of Object.keys(SEARCH_ATTRIBUTES)) {
      expect(output).toMatch(new RegExp(`\\b${name}\\s+Keyword\\b`));
    }

    await server.stop();
    server = null;
    expect(await isPortOpen('127.0.0.1', port)).toBe(false);
  });

  it('finds an executable time-skipping test server', () => {
    const testServer = temporalTestServerPath();
    expect(testServer).not.toBeNull();
    expect(fs.statSync(testServer!).isFile()).toBe(true);
    expect(() => fs.accessSync(testServer!, fs.constants.X_OK)).not.toThrow();
  });
});
