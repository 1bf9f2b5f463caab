import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { createElement } from 'react';
import { Markdown } from '../../src/app/components/Markdown';

const render = (text: string, cite = true) => renderToStaticMarkup(createElement(Markdown, { text, ...(cite ? { onCite: () => undefined } : {}) }));

describe('Markdown rendering of model output', () => {
  it('renders Markdown but never raw HTML, scripts, unsafe links or remote images', () => {
    const html = render('**bold** <script>alert(1)</script><img src=x onerror=alert(1)> [x](javascript:alert(1)) ![t](https://evil.example/pixel.png) [ok](https://example.com)');
    expect(html).toContain('<strong>bold</strong>');
    expect(html).not.toContain('<script');
    expect(html).not.toContain('onerror');
    expect(html).not.toContain('javascript:');
    expect(html).not.toContain('evil.example');
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
