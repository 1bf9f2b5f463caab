/**
 * A message's Markdown as an element tree (hast): parsed with remark-parse and remark-gfm, turned
 * into HTML elements by remark-rehype, then made safe and bounded. Plain data, so it is built the
 * same way on the page (messages within MARKDOWN_LIMITS) and in the Markdown worker ("Show
 * formatted" on the others), and drawn by MarkdownContent.tsx.
 *
 * Safe: raw HTML in the text never becomes an element (remark-rehype drops it unless told
 * otherwise), a link keeps its address only for http(s), mailto and citation anchors, and an
 * image keeps no address at all (it is drawn as "[image: alt]", nothing is fetched).
 *
 * Bounded: containers nested deeper than MAX_NESTING (blockquotes, lists) or any node deeper than
 * MAX_DEPTH are flattened into their text before the tree is converted, so neither the conversion
 * nor the drawing recurses without bound (5,000 nested quotes overflowed the stack), and a page of
 * nested quotes does not drift off the right edge. The tree is walked with explicit stacks.
 */
import { unified } from 'unified';
import remarkParse from 'remark-parse';
import remarkGfm from 'remark-gfm';
import remarkRehype from 'remark-rehype';
import type { Nodes as MdNodes, Parents as MdParents, Root as MdRoot, RootContent as MdContent } from 'mdast';
import type { Element, Nodes, Root } from 'hast';
import type { MarkdownTree } from '../../core/protocol';
import { MARKDOWN_LIMITS } from './markdownBudget';

export type { MarkdownTree };

/** Quote and list levels drawn as such; deeper ones are shown as their text. */
export const MAX_NESTING = MARKDOWN_LIMITS.nesting;
/** Any node this deep is flattened, whatever its kind (emphasis inside emphasis…). */
export const MAX_DEPTH = 100;

export interface TreeOptions {
  /** Turn "[3]" into a citation link (#cite-3) that the page draws as a button. */
  readonly citations?: boolean;
}

const processor = unified().use(remarkParse).use(remarkGfm).use(remarkRehype);

/** "[3]" (not a link's label "[3](…)") → a link to #cite-3 whose text is "[3]". */
export function withCitationLinks(text: string): string {
  return text.replace(/\[(\d{1,3})\](?!\()/g, '[\\[$1\\]](#cite-$1)');
}

export function markdownTree(text: string, options: TreeOptions = {}): MarkdownTree {
  const mdast = processor.parse(options.citations ? withCitationLinks(text) : text);
  const flattened = flattenDeep(mdast);
  const root = processor.runSync(mdast) as Root;
  return { root, nodes: tidy(root), flattened };
}

const NESTS: ReadonlySet<string> = new Set(['blockquote', 'list']);
/** Parents whose children are blocks: a flattened child becomes a paragraph there, elsewhere text. */
const HOLDS_BLOCKS: ReadonlySet<string> = new Set(['root', 'blockquote', 'listItem', 'footnoteDefinition']);
const BLOCKS: ReadonlySet<string> = new Set([
  'paragraph',
  'heading',
  'code',
  'blockquote',
  'list',
  'listItem',
  'table',
  'tableRow',
  'thematicBreak',
  'footnoteDefinition',
  'html',
]);

/** The text under `node`, blocks on lines of their own; no recursion. */
function plainText(node: MdNodes): string {
  const out: string[] = [];
  const stack: (MdNodes | null)[] = [node];
  while (stack.length > 0) {
    const n = stack.pop();
    if (n === null) {
      // the end of a block
      if (out.length > 0 && out[out.length - 1] !== '\n') out.push('\n');
      continue;
    }
    if (n === undefined) continue;
    if ('value' in n && typeof n.value === 'string') out.push(n.value);
    else if (n.type === 'break') out.push('\n');
    if (BLOCKS.has(n.type)) stack.push(null);
    if ('children' in n) for (let k = n.children.length - 1; k >= 0; k--) stack.push(n.children[k]!);
  }
  return out.join('').trim();
}

/**
 * Replaces every node nested past MAX_NESTING containers or MAX_DEPTH levels with its text: a
 * paragraph where blocks belong, a text node elsewhere (inside a list or table row, the item's or
 * cell's content instead, so the parent keeps the children it expects). Returns whether any was.
 */
function flattenDeep(root: MdRoot): boolean {
  let flattened = false;
  const stack: { node: MdParents; nesting: number; depth: number }[] = [{ node: root, nesting: 0, depth: 0 }];
  while (stack.length > 0) {
    const { node, nesting, depth } = stack.pop()!;
    const children = node.children as MdContent[];
    for (let k = 0; k < children.length; k++) {
      const child = children[k]!;
      if (!('children' in child)) continue;
      const childNesting = nesting + (NESTS.has(child.type) ? 1 : 0);
      if (childNesting <= MAX_NESTING && depth + 1 < MAX_DEPTH) {
        stack.push({ node: child, nesting: childNesting, depth: depth + 1 });
        continue;
      }
      flattened = true;
      const value = plainText(child);
      if (child.type === 'listItem' || child.type === 'tableRow') {
        // Keep the item (or row) its parent needs; its content becomes the text.
        if (child.type === 'listItem') child.children = [{ type: 'paragraph', children: [{ type: 'text', value }] }];
        else for (const cell of child.children) cell.children = [{ type: 'text', value: plainText(cell) }];
      } else if (child.type === 'tableCell') {
        child.children = [{ type: 'text', value }];
      } else {
        children[k] = HOLDS_BLOCKS.has(node.type) ? { type: 'paragraph', children: [{ type: 'text', value }] } : { type: 'text', value };
      }
    }
  }
  return flattened;
}

/** Link addresses kept: the web, mail, and Recollect's own citation anchors. */
export function safeHref(url: unknown): string | null {
  if (typeof url !== 'string') return null;
  if (/^#cite-\d{1,3}$/.test(url)) return url;
  return /^(https?:|mailto:)/i.test(url.trim()) ? url.trim() : null;
}

/**
 * Drops what the page must not get (addresses other than safeHref's, image sources, source
 * positions the page does not use) and counts the nodes. Returns the count.
 */
function tidy(root: Root): number {
  let count = 0;
  const stack: Nodes[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    count++;
    delete node.position;
    if (node.type === 'element') sanitise(node);
    if ('children' in node) for (const child of node.children) stack.push(child);
  }
  return count;
}

/** Properties (hast names) that hold an address the browser would load or follow. */
const ADDRESSES = ['href', 'src', 'srcSet', 'action', 'formAction', 'poster', 'cite', 'background'];

function sanitise(el: Element): void {
  const props = el.properties;
  const href = el.tagName === 'a' ? safeHref(props.href) : null;
  for (const key of ADDRESSES) delete props[key];
  if (href !== null) props.href = href;
}
