import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { maxPage, pageOffset, parseSorting } from '../../domain/pagination.ts';

const limitArb = fc.integer({ min: 1, max: 100 });

describe('pageOffset', () => {
  it('is 0-based rows to skip for a 1-based page', () => {
    expect(pageOffset({ page: 1, limit: 10 })).toBe(0);
    expect(pageOffset({ page: 3, limit: 25 })).toBe(50);
  });

  it.each([
    { page: 0, limit: 10 },
    { page: 1, limit: 0 },
    { page: 1.5, limit: 10 },
    { page: -1, limit: 10 },
  ])('throws RangeError for %p', (p) => {
    expect(() => pageOffset(p)).toThrow(RangeError);
  });

  it('property: consecutive pages are exactly limit rows apart', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), limitArb, (page, limit) => {
        return pageOffset({ page: page + 1, limit }) - pageOffset({ page, limit }) === limit;
      }),
    );
  });
});

describe('maxPage', () => {
  it('is 1 for an empty list so page 1 is always valid', () => {
    expect(maxPage(0, 10)).toBe(1);
  });

  it('rounds up partial pages', () => {
    expect(maxPage(10, 10)).toBe(1);
    expect(maxPage(11, 10)).toBe(2);
    expect(maxPage(250, 100)).toBe(3);
  });

  it('throws RangeError on bad input', () => {
    expect(() => maxPage(-1, 10)).toThrow(RangeError);
    expect(() => maxPage(10, 0)).toThrow(RangeError);
  });

  it('property: every item lands on a page in 1..maxPage, and the last page is non-empty', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), limitArb, (total, limit) => {
        const last = maxPage(total, limit);
        if (last < 1) return false;
        if (total === 0) return last === 1;
        const lastOffset = pageOffset({ page: last, limit });
        // last page holds the final item, and nothing spills past it
        return lastOffset < total && lastOffset + limit >= total;
      }),
    );
  });
});

describe('parseSorting', () => {
  const allowed = ['created_at', 'name'] as const;

  it('parses ascending and descending fields', () => {
    expect(parseSorting('name', allowed, '-created_at')).toEqual({
      field: 'name',
      direction: 'asc',
    });
    expect(parseSorting('-name', allowed, '-created_at')).toEqual({
      field: 'name',
      direction: 'desc',
    });
  });

  it('uses the fallback when absent', () => {
    expect(parseSorting(undefined, allowed, '-created_at')).toEqual({
      field: 'created_at',
      direction: 'desc',
    });
  });

  it.each(['email', '--name', '-', 'name;drop table x', '+name', '', '  ', ' name', '-name '])(
    'rejects %p naming the allowed fields',
    (s) => {
      const r = parseSorting(s, allowed, 'created_at');
      expect(r).toHaveProperty('error');
      expect('error' in r && r.error).toMatch(/created_at, name/);
    },
  );

  it('property: any allowed field with an optional minus round-trips', () => {
    fc.assert(
      fc.property(fc.constantFrom(...allowed), fc.boolean(), (field, desc) => {
        const r = parseSorting(`${desc ? '-' : ''}${field}`, allowed, 'created_at');
        return 'field' in r && r.field === field && r.direction === (desc ? 'desc' : 'asc');
      }),
    );
  });
});
