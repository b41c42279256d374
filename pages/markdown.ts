import type { VNode } from 'preact';
import { html } from './render.ts';

/**
 * A product's description (Markdown, as the dashboard says) for a buyer's page: a restricted renderer
 * of the common subset (paragraphs and line breaks, headings, lists, bold, italic, code, links) that
 * builds preact elements, so every character the merchant wrote is escaped as text by the renderer.
 * There is no raw HTML to sanitize: `<b>` stays the text "<b>". A link goes only to http(s) or mailto,
 * with rel="noopener noreferrer nofollow"; any other target (javascript:, data:) is shown as its text.
 * Nothing it makes has a style or script attribute, so the pages' CSP holds.
 */
export function renderMarkdown(source: string): VNode[] {
  return blocks(source.replace(/\r\n?/g, '\n')).map(block);
}

type Block =
  | { kind: 'heading'; level: number; text: string }
  | { kind: 'list'; ordered: boolean; items: string[] }
  | { kind: 'paragraph'; lines: string[] };

const HEADING = /^(#{1,6})\s+(.*?)\s*#*$/;
const BULLET = /^\s*[-*+]\s+(.*)$/;
const NUMBERED = /^\s*\d{1,9}[.)]\s+(.*)$/;

function blocks(source: string): Block[] {
  const out: Block[] = [];
  for (const line of source.split('\n')) {
    const last = out.at(-1);
    if (line.trim() === '') {
      out.push({ kind: 'paragraph', lines: [] });
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      out.push({ kind: 'heading', level: heading[1]!.length, text: heading[2]! });
      continue;
    }
    const item = BULLET.exec(line) ?? NUMBERED.exec(line);
    if (item) {
      const ordered = !BULLET.test(line);
      if (last?.kind === 'list' && last.ordered === ordered) last.items.push(item[1]!);
      else out.push({ kind: 'list', ordered, items: [item[1]!] });
      continue;
    }
    if (last?.kind === 'paragraph') last.lines.push(line.trim());
    else out.push({ kind: 'paragraph', lines: [line.trim()] });
  }
  return out.filter((b) => b.kind !== 'paragraph' || b.lines.length > 0);
}

function block(b: Block): VNode {
  switch (b.kind) {
    // The page's h1 is the product's name: the description's headings sit below it.
    case 'heading':
      return b.level === 1 ? html`<h2>${inline(b.text)}</h2>` : html`<h3>${inline(b.text)}</h3>`;
    case 'list': {
      const items = b.items.map((item) => html`<li>${inline(item)}</li>`);
      return b.ordered
        ? html`<ol>
            ${items}
          </ol>`
        : html`<ul>
            ${items}
          </ul>`;
    }
    case 'paragraph':
      return html`<p>${b.lines.flatMap((line, i) => (i === 0 ? inline(line) : [html`<br />`, ...inline(line)]))}</p>`;
  }
}

type Inline = string | VNode;

/** The inline marks, tried at each position in this order; the earliest match in the text wins. */
const MARKS: { pattern: RegExp; render: (m: RegExpExecArray) => Inline }[] = [
  { pattern: /`([^`]+)`/, render: (m) => html`<code>${m[1]}</code>` },
  { pattern: /\[([^\]]+)\]\(([^()\s]+)\)/, render: (m) => link(m[1]!, m[2]!) },
  { pattern: /\*\*(.+?)\*\*|__(.+?)__/, render: (m) => html`<strong>${inline(m[1] ?? m[2]!)}</strong>` },
  { pattern: /\*([^*\s][^*]*?)\*|\b_([^_\s][^_]*?)_\b/, render: (m) => html`<em>${inline(m[1] ?? m[2]!)}</em>` },
];

function inline(text: string): Inline[] {
  let first: { index: number; match: RegExpExecArray; render: (m: RegExpExecArray) => Inline } | null = null;
  for (const { pattern, render } of MARKS) {
    const match = pattern.exec(text);
    if (match && (!first || match.index < first.index)) first = { index: match.index, match, render };
  }
  if (!first) return text === '' ? [] : [text];
  const before = text.slice(0, first.index);
  const after = text.slice(first.index + first.match[0].length);
  return [...(before ? [before] : []), first.render(first.match), ...inline(after)];
}

const LINK_PROTOCOLS = new Set(['https:', 'http:', 'mailto:']);

function link(text: string, target: string): Inline {
  const url = URL.canParse(target) ? new URL(target) : null;
  if (!url || !LINK_PROTOCOLS.has(url.protocol)) return text;
  return html`<a href=${url.href} rel="noopener noreferrer nofollow">${inline(text)}</a>`;
}
