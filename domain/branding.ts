/**
 * An organization's brand on the pages buyers and customers see (the checkout, the portal, the
 * e-mails): its colour and its logo, kept in `profile_settings` under `brand_color` and
 * `logo_file_id` (the spec leaves that object's keys to us). Text on the colour is black or white,
 * whichever contrasts more: one of the two always reaches WCAG's 4.5:1, so no colour a merchant picks
 * can make a button unreadable.
 */

/** A colour as the dashboard's colour input gives it: `#` and six hex digits. */
export const BRAND_COLOR_PATTERN = /^#[0-9a-fA-F]{6}$/;

export interface Brand {
  /** The merchant's colour (lower case), or null for the pages' own. */
  color: string | null;
  /** The text colour on `color`. */
  ink: '#000000' | '#ffffff' | null;
  /** An image file of the organization shown as its logo, or null. */
  logoFileId: string | null;
}

/** WCAG 2's relative luminance of a `#rrggbb` colour. */
export function relativeLuminance(hex: string): number {
  const channel = (i: number) => {
    const c = parseInt(hex.slice(1 + 2 * i, 3 + 2 * i), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(0) + 0.7152 * channel(1) + 0.0722 * channel(2);
}

/** WCAG 2's contrast ratio of two `#rrggbb` colours, from 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x);
  return (light! + 0.05) / (dark! + 0.05);
}

/** Black or white, whichever reads better on `hex`. */
export function inkOn(hex: string): '#000000' | '#ffffff' {
  return contrastRatio(hex, '#000000') >= contrastRatio(hex, '#ffffff') ? '#000000' : '#ffffff';
}

/** The brand an organization's `profile_settings` hold; anything unusable there counts as unset. */
export function brandOf(profileSettings: Record<string, unknown> | null | undefined): Brand {
  const color = profileSettings?.brand_color;
  const logo = profileSettings?.logo_file_id;
  const valid = typeof color === 'string' && BRAND_COLOR_PATTERN.test(color) ? color.toLowerCase() : null;
  return {
    color: valid,
    ink: valid ? inkOn(valid) : null,
    logoFileId: typeof logo === 'string' && logo.length > 0 ? logo : null,
  };
}

/**
 * The path of an organization's logo that stays put (decision 0094): its mails link it under
 * PUBLIC_BASE_URL, and the route sends whoever asks to a fresh signed URL of the file it is now.
 */
export const brandLogoPath = (organizationId: string) => `/brand/logos/${organizationId}`;
