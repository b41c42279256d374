import { describe, expect, it } from '@jest/globals';
import { renderToString } from 'preact-render-to-string';
import { renderMarkdown } from '../../pages/markdown.ts';
import { html } from '../../pages/render.ts';

/** A product description's Markdown, as the checkout shows it: the common subset, and nothing that runs. */
const rendered = (source: string) => renderToString(html`<div>${renderMarkdown(source)}</div>`);

describe('product description Markdown', () => {
  it('renders paragraphs, line breaks, headings, lists, emphasis, code and links', () => {
    expect(
      rendered('# Curso\n\nAprenda **cerâmica** com _calma_.\nNova linha `código`\n\n- um\n- dois\n\n1. a\n2. b'),
    ).toBe(
      '<div><h2>Curso</h2><p>Aprenda <strong>cerâmica</strong> com <em>calma</em>.<br/>Nova linha <code>código</code></p>' +
        '<ul><li>um</li><li>dois</li></ul><ol><li>a</li><li>b</li></ol></div>',
    );
    expect(rendered('[Programa](https://shop.example/p?a=1&b=2) e [fale](mailto:oi@shop.example)')).toBe(
      '<div><p><a href="https://shop.example/p?a=1&amp;b=2" rel="noopener noreferrer nofollow">Programa</a> e ' +
        '<a href="mailto:oi@shop.example" rel="noopener noreferrer nofollow">fale</a></p></div>',
    );
  });

  it('keeps raw HTML as text, and links only to http(s) and mailto', () => {
    const out = rendered(
      '<script>alert(1)</script> <img src=x onerror=alert(2)> [a](javascript:alert) [b](data:text/html,x) [c](//evil)',
    );
    expect(out).toBe('<div><p>&lt;script>alert(1)&lt;/script> &lt;img src=x onerror=alert(2)> a b c</p></div>');
    expect(out).not.toMatch(/<a |<script|<img/);
  });
});
