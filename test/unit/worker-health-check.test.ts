import { describe, expect, it } from '@jest/globals';
import { POLLER_FRESH_MS, pollingHere } from '../../worker/health-check.ts';

/** The worker container's healthcheck decides from the pollers Temporal lists for a task queue. */
describe('pollingHere', () => {
  const now = 1_800_000_000_000;
  const seenAgo = (ms: number) => ({ seconds: Math.floor((now - ms) / 1000), nanos: 0 });

  it("is true for this host's poller seen lately, whatever its pid", () => {
    const pollers = [{ identity: '1@a1b2c3', lastAccessTime: seenAgo(20_000) }];
    expect(pollingHere(pollers, 'a1b2c3', now)).toBe(true);
  });

  it("is false for another container's pollers, or none", () => {
    expect(pollingHere([{ identity: '1@other', lastAccessTime: seenAgo(1000) }], 'a1b2c3', now)).toBe(false);
    // A hostname that only ends like ours is another host.
    expect(pollingHere([{ identity: '1@xa1b2c3', lastAccessTime: seenAgo(1000) }], 'a1b2c3', now)).toBe(false);
    expect(pollingHere([], 'a1b2c3', now)).toBe(false);
  });

  it('is false for a poller of this host that stopped polling', () => {
    const stale = [{ identity: '1@a1b2c3', lastAccessTime: seenAgo(POLLER_FRESH_MS + 5000) }];
    expect(pollingHere(stale, 'a1b2c3', now)).toBe(false);
    expect(pollingHere([{ identity: '1@a1b2c3', lastAccessTime: null }], 'a1b2c3', now)).toBe(false);
  });

  it('reads the Long seconds the gRPC client returns', () => {
    const long = { toNumber: () => Math.floor((now - 1000) / 1000) };
    expect(pollingHere([{ identity: '7@a1b2c3', lastAccessTime: { seconds: long } }], 'a1b2c3', now)).toBe(true);
  });
});
