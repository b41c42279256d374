import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { brandOf, contrastRatio, inkOn } from '../../domain/branding.ts';

describe('brand colours', () => {
  it('measures contrast as WCAG does (figures from WebAIM’s contrast checker)', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 2);
    expect(contrastRatio('#ffffff', '#777777')).toBeCloseTo(4.48, 2);
    expect(contrastRatio('#767676', '#ffffff')).toBeCloseTo(4.54, 2);
    expect(contrastRatio('#0000ff', '#ffffff')).toBeCloseTo(8.59, 2);
    expect(contrastRatio('#ffff00', '#000000')).toBeCloseTo(19.56, 2);
  });

  it('writes white on a dark colour and black on a light one', () => {
    expect(inkOn('#1a237e')).toBe('#ffffff');
    expect(inkOn('#ffeb3b')).toBe('#000000');
    expect(inkOn('#009c3b')).toBe('#000000'); // Brazil's green: 5.8:1 with black, 3.6:1 with white
  });

  it('never leaves text on a merchant’s colour below 4.5:1, whatever the colour', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffff }), (n) => {
        const hex = `#${n.toString(16).padStart(6, '0')}`;
        expect(contrastRatio(hex, inkOn(hex))).toBeGreaterThanOrEqual(4.5);
      }),
      { numRuns: 2000 },
    );
  });

  it('reads the brand from profile_settings, ignoring what is not a colour or a file id', () => {
    expect(brandOf({ brand_color: '#1A237E', logo_file_id: 'f1' })).toEqual({
      color: '#1a237e',
      ink: '#ffffff',
      logoFileId: 'f1',
    });
    expect(brandOf({ brand_color: 'red', logo_file_id: 3 })).toEqual({ color: null, ink: null, logoFileId: null });
    expect(brandOf(null)).toEqual({ color: null, ink: null, logoFileId: null });
  });
});
