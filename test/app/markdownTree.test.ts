/**
 * The element tree a message's Markdown becomes (markdownTree.ts), on the page or in the worker:
 * bounded in depth whatever the input, safe (no raw HTML, no unsafe or image addresses), and
 * faithful for code blocks, wide tables and lists within the limits.
 */
import { describe, expect, it } from 'vitest';
import type { Element, Nodes, Root } from 'hast';
import { MAX_NESTING, markdownTree, safeHref } from '../../src/app/markdown/markdownTree';
import { DEEP_LIST, DEEP_LIST_ONE_LINE, LONG_CODE_BLOCK, NESTED_LIST_6, NESTED_QUOTES, WIDE_TABLE } from '../support/markdownFixtures';

/** Deepest run of nested `tags` elements, and every text, walked without recursion. */
function inspect(root: Root, tags: readonly string[]): { nesting: number; text: string; elements: Element[] } {
  let nesting = 0;
  const texts: string[] = [];
  const elements: Element[] = [];
  const stack: { node: Nodes; level: number }[] = [{ node: root, level: 0 }];
  while (stack.length > 0) {
    const { node, level } = stack.pop()!;
    let here = level;
    if (node.type === 'element') {
      elements.push(node);
      if (tags.includes(node.tagName)) here = level + 1;
      nesting = Math.max(nesting, here);
    }
    if (node.type === 'text') texts.push(node.value);
    if ('children' in node) for (let k = node.children.length - 1; k >= 0; k--) stack.push({ node: node.children[k]!, level: here });
  }
  return { nesting, text: texts.join(' '), elements };
}

describe('markdownTree: bounded depth', () => {
  it('5,000 nested quotes become 16 nested quotes and the innermost text, without overflowing the stack', () => {
    const tree = markdownTree(NESTED_QUOTES);
    const seen = inspect(tree.root, ['blockquote']);
    expect(tree.flattened).toBe(true);
    expect(seen.nesting).toBe(MAX_NESTING);
    expect(seen.text).toContain('The innermost quote says hello.');
  });

  it("a 200-deep list keeps 16 levels and every item's text", () => {
    for (const list of [DEEP_LIST, DEEP_LIST_ONE_LINE]) {
      const tree = markdownTree(list);
      const seen = inspect(tree.root, ['ul', 'ol']);
      expect(tree.flattened).toBe(true);
      expect(seen.nesting).toBe(MAX_NESTING);
    }
    const text = inspect(markdownTree(DEEP_LIST).root, []).text;
    for (const n of [1, 16, 17, 100, 200]) expect(text).toMatch(new RegExp(`level ${n}\\b`));
  });

  it('lists and quotes within the limit are kept as they are', () => {
    const tree = markdownTree(NESTED_LIST_6);
    expect(tree.flattened).toBe(false);
    expect(inspect(tree.root, ['ul']).nesting).toBe(6);
  });
});

describe('markdownTree: what stays formatted', () => {
  it('a long code block is one pre > code with its language and every line', () => {
    const { elements, text } = inspect(markdownTree(LONG_CODE_BLOCK).root, []);
    const code = elements.filter((e) => e.tagName === 'code');
    expect(code).toHaveLength(1);
    expect(code[0]!.properties.className).toEqual(['language-ts']);
    expect(elements.filter((e) => e.tagName === 'pre')).toHaveLength(1);
    expect(text).toContain('const value_299 = compute_step(299, "step 299"); // total');
  });

  it('a 40-column table keeps its 40 columns and 16 rows', () => {
    const { elements } = inspect(markdownTree(WIDE_TABLE).root, []);
    expect(elements.filter((e) => e.tagName === 'th')).toHaveLength(40);
    expect(elements.filter((e) => e.tagName === 'tr')).toHaveLength(17);
  });
});

describe('markdownTree: safety', () => {
  it('drops raw HTML, unsafe addresses and image sources', () => {
    const tree = markdownTree(
      '**bold** <script>alert(1)</script><img src=x onerror=alert(1)> [x](javascript:alert(1)) ![t](https://evil.example/pixel.png) [ok](https://example.com)',
    );
    const json = JSON.stringify(tree.root);
    expect(json).not.toContain('script');
    expect(json).not.toContain('onerror');
    expect(json).not.toContain('javascript:');
    expect(json).not.toContain('evil.example');
    expect(json).toContain('"href":"https://example.com"');
    expect(json).not.toContain('"position"');
  });

  it('keeps http(s), mailto and citation anchors only', () => {
    expect(safeHref('https://a.example/x')).toBe('https://a.example/x');
    expect(safeHref('mailto:a@b.c')).toBe('mailto:a@b.c');
    expect(safeHref('#cite-12')).toBe('#cite-12');
    expect(safeHref('#cite-1234')).toBeNull();
    expect(safeHref('javascript:alert(1)')).toBeNull();
    expect(safeHref('data:text/html,x')).toBeNull();
    expect(safeHref('/relative')).toBeNull();
  });

  it('turns "[3]" into a citation link only when asked', () => {
    expect(JSON.stringify(markdownTree('Moved in March [3].', { citations: true }).root)).toContain('"href":"#cite-3"');
    expect(JSON.stringify(markdownTree('Moved in March [3].').root)).not.toContain('#cite-');
  });
});
