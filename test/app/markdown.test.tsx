/**
 * Messages drawn by the Markdown component (server-rendered here, as in the page's first draw):
 * sanitised, with citation buttons; the fixtures that froze or blanked a conversation are drawn as
 * plain text with "Show formatted", the large ordinary ones formatted.
 */
import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { createElement } from 'react';
import { Markdown, PlainOnError } from '../../src/app/components/Markdown';
import {
  DEEP_LIST,
  EMPHASIS_OPENERS,
  LONG_CODE_BLOCK,
  NESTED_LIST_6,
  NESTED_QUOTES,
  NORMAL_ANSWER,
  PLAIN_100K,
  WIDE_TABLE,
} from '../support/markdownFixtures';

const render = (text: string, cite = true) =>
  renderToStaticMarkup(createElement(Markdown, { text, ...(cite ? { onCite: () => undefined } : {}) }));
const unescape = (html: string) =>
  html
    .replace(/&gt;/g, '>')
    .replace(/&lt;/g, '<')
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'")
    .replace(/&amp;/g, '&');

describe('Markdown rendering of model output', () => {
  it('renders Markdown but never raw HTML, scripts, unsafe links or remote images', () => {
    const html = render(
      '**bold** <script>alert(1)</script><img src=x onerror=alert(1)> [x](javascript:alert(1)) ![t](https://evil.example/pixel.png) [ok](https://example.com)',
    );
    expect(html).toContain('<strong>bold</strong>');
    expect(html).not.toContain('<script');
    expect(html).not.toContain('onerror');
    expect(html).not.toContain('javascript:');
    expect(html).not.toContain('evil.example');
    expect(html).toContain('<span class="muted">[image: t]</span>');
    expect(html).toContain('href="https://example.com"');
    expect(html).toContain('rel="noopener noreferrer nofollow"');
  });

  it('turns citation markers into buttons', () => {
    const html = render('Ana moved to Lisbon in March [2], see also [10].');
    expect(html).toContain('aria-label="Source 2"');
    expect(html).toContain('aria-label="Source 10"');
    expect(render('No citations [2]', false)).not.toContain('button');
  });
});

describe('Markdown within bounded time and depth', () => {
  it.each([
    ['5,000 nested quotes', NESTED_QUOTES, 'it nests quotes or lists more than 16 levels deep'],
    ['40,000 emphasis openers', EMPHASIS_OPENERS, 'it is 80,000 characters long'],
    ['a plain 100,000-character message', PLAIN_100K, 'it is 100,000 characters long'],
    ['a 200-deep list', DEEP_LIST, 'it is 42,091 characters long'],
  ])('%s is drawn as its whole text, plain, with "Show formatted"', (_name, text, why) => {
    const html = render(text);
    expect(html).toContain('data-shown="plain"');
    expect(html).toContain(`Shown as plain text: ${why}`);
    expect(html).toMatch(/<button type="button" class="link-button" aria-describedby="[^"]+">Show formatted<\/button>/);
    expect(unescape(html)).toContain(`<pre class="plain-message">${text}</pre>`);
    expect(html).not.toContain('<blockquote');
    expect(html).not.toContain('<em>');
  });

  it('a streamed answer past the limits is plain without "Show formatted" until it is complete', () => {
    const html = renderToStaticMarkup(createElement(Markdown, { text: NESTED_QUOTES, live: true }));
    expect(html).toContain('data-shown="plain"');
    expect(html).not.toContain('Show formatted');
  });

  it('a long code block, a 40-column table and a 6-deep list are formatted', () => {
    const code = render(LONG_CODE_BLOCK);
    expect(code).toContain('data-shown="formatted"');
    expect(code).toContain('<pre tabindex="0" role="group" aria-label="Code block"><code class="language-ts">');
    const table = render(WIDE_TABLE);
    expect(table).toContain('<div class="table-scroll" tabindex="0" role="group" aria-label="Table"><table>');
    expect(table.match(/<th>/g)).toHaveLength(40);
    const list = render(NESTED_LIST_6);
    expect(list.match(/<ul>/g)).toHaveLength(6);
    const normal = render(NORMAL_ANSWER);
    expect(normal).toContain('<h2>Planting plan</h2>');
    expect(normal).toContain('<blockquote>');
    expect(normal).toContain('aria-label="Source 1"');
  });

  it('a message that fails to draw formatted is shown as its plain text with the reason', () => {
    const boundary = new PlainOnError({ text: 'Some **text**', children: null });
    boundary.state = { ...boundary.state, ...PlainOnError.getDerivedStateFromError(new RangeError('Maximum call stack size exceeded')) };
    const html = renderToStaticMarkup(createElement('div', null, boundary.render()));
    expect(html).toContain('<pre class="plain-message">Some **text**</pre>');
    expect(html).toContain('it could not be formatted (Maximum call stack size exceeded)');
    // Another text draws formatted again.
    expect(PlainOnError.getDerivedStateFromProps({ text: 'Other' }, boundary.state)).toEqual({ error: null, text: 'Other' });
  });
});
