import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { endpointUrlRefusal, publicAddressRefusal, retryDelayMs } from '../../domain/webhooks.ts';

describe('webhook retry schedule', () => {
  it('waits 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h (no jitter at the midpoint), then stops', () => {
    const hours = (h: number) => h * 3_600_000;
    const waits = Array.from({ length: 10 }, (_, i) => retryDelayMs(i + 1, 0.5));
    expect(waits).toEqual([
      5_000,
      300_000,
      1_800_000,
      hours(2),
      hours(5),
      hours(10),
      hours(14),
      hours(20),
      hours(24),
      null,
    ]);
    // About three days from the first attempt to the last.
    const total = waits.reduce<number>((sum, w) => sum + (w ?? 0), 0);
    expect(total / hours(24)).toBeCloseTo(3.15, 2);
  });

  it('jitters each wait by at most 20 % either way', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9 }), fc.double({ min: 0, max: 0.9999999, noNaN: true }), (n, r) => {
        const mid = retryDelayMs(n, 0.5)!;
        const w = retryDelayMs(n, r)!;
        return w >= Math.floor(mid * 0.8) && w <= Math.ceil(mid * 1.2);
      }),
    );
  });
});

describe('webhook endpoint URLs', () => {
  it.each([
    ['https://hooks.example.com/billing', 'test', null],
    ['https://hooks.example.com/billing', 'live', null],
    ['http://127.0.0.1:3000/hooks', 'test', null],
    ['http://localhost:3000/hooks', 'test', null],
    ['http://[::1]:3000/hooks', 'test', null],
    ['http://127.0.0.1:3000/hooks', 'live', 'must use https (http only to a loopback address in the sandbox)'],
    ['http://hooks.example.com/billing', 'test', 'must use https (http only to a loopback address in the sandbox)'],
    ['https://127.0.0.1/hooks', 'live', 'must not be a loopback or private address'],
    ['https://10.1.2.3/hooks', 'live', 'must not be a loopback or private address'],
    ['https://192.168.0.10/hooks', 'live', 'must not be a loopback or private address'],
    ['https://169.254.169.254/latest', 'live', 'must not be a loopback or private address'],
    ['https://[::ffff:10.0.0.1]/hooks', 'live', 'must not be a loopback or private address'],
    ['https://[fd00::1]/hooks', 'live', 'must not be a loopback or private address'],
    ['https://user:secret@hooks.example.com/', 'test', 'must not carry credentials'],
    ['ftp://hooks.example.com/', 'test', 'must use https'],
    ['not a url', 'test', 'must be an absolute URL'],
  ] as const)('%s in %s: %s', (url, env, refusal) => {
    expect(endpointUrlRefusal(url, env)).toBe(refusal);
  });

  it('refuses in production a host resolving to any non-public address (after DNS), not in the sandbox', () => {
    expect(publicAddressRefusal(['93.184.215.14'], 'live')).toBeNull();
    expect(publicAddressRefusal(['93.184.215.14', '10.0.0.5'], 'live')).toBe(
      'resolves to a non-public address (10.0.0.5)',
    );
    expect(publicAddressRefusal(['127.0.0.1'], 'live')).toBe('resolves to a non-public address (127.0.0.1)');
    expect(publicAddressRefusal(['::1'], 'live')).toBe('resolves to a non-public address (::1)');
    expect(publicAddressRefusal(['127.0.0.1'], 'test')).toBeNull();
  });
});
