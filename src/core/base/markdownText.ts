/**
 * The words of a Markdown text without its markup, for places that show a turn as one line of plain
 * text (search results): an assistant's `**Biscuit**` reads "Biscuit" there, as it does in the chat
 * where it is rendered. Parsed with the same CommonMark + GFM parser react-markdown uses (mdast),
 * not with regular expressions, so code, links, tables and lists come out as the chat shows them.
 * Blocks (paragraphs, list items, table cells, headings) are joined with a space.
 */
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';

interface MdNode {
  readonly type: string;
  readonly value?: string;
  readonly alt?: string | null;
  readonly children?: readonly MdNode[];
}

const BLOCKS = new Set([
  'paragraph',
  'heading',
  'listItem',
  'tableCell',
  'tableRow',
  'code',
  'blockquote',
  'thematicBreak',
  'html',
  'break',
]);

export function markdownText(markdown: string): string {
  const parts: string[] = [];
  const walk = (node: MdNode) => {
    if (node.type === 'text' || node.type === 'inlineCode' || node.type === 'code') parts.push(node.value ?? '');
    else if (node.type === 'image' && node.alt) parts.push(node.alt);
    node.children?.forEach(walk);
    if (BLOCKS.has(node.type)) parts.push(' ');
  };
  walk(fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] }) as MdNode);
  return parts.join('').replace(/\s+/g, ' ').trim();
}
