import type { ComponentChildren, VNode } from 'preact';
import { html } from './render.ts';

/**
 * A table's scroll region. On a phone (390 px) the portal's and the dashboard's tables are wider than
 * the screen and scroll sideways inside it; a region that scrolls must take focus, or a keyboard cannot
 * reach what is off screen (axe `scrollable-region-focusable`). It is a named region, so that a screen
 * reader says what the focus landed on.
 */
export function ScrollRegion({
  label,
  labelledBy,
  children,
}: {
  label?: string;
  /** The id of the heading that names it (the section's), instead of `label`. */
  labelledBy?: string;
  children: ComponentChildren;
}): VNode {
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label=${label} aria-labelledby=${labelledBy}>
    ${children}
  </div>`;
}
