/**
 * Draws a MarkdownTree (markdownTree.ts) as React elements with hast-util-to-jsx-runtime: never
 * innerHTML. Citation links become buttons, images a note in their place, and a table scrolls
 * sideways inside its message (a 40-column table must not widen the chat).
 */
import { toJsxRuntime, type Components } from 'hast-util-to-jsx-runtime';
import { Fragment, jsx, jsxs } from 'react/jsx-runtime';
import type { ReactNode } from 'react';
import type { Root } from 'hast';

/** Called with a citation's number when its button is pressed; read when pressed, so it may change between draws. */
export type CiteHandler = { readonly current: ((n: number) => void) | undefined };

function components(onCite: CiteHandler): Partial<Components> {
  return {
    a: ({ href, children }) => {
      if (href?.startsWith('#cite-')) {
        const n = Number(href.slice(6));
        return (
          <button type="button" className="cite" aria-label={`Source ${n}`} onClick={() => onCite.current?.(n)}>
            {n}
          </button>
        );
      }
      return href ? (
        <a href={href} target="_blank" rel="noopener noreferrer nofollow">
          {children}
        </a>
      ) : (
        <span>{children}</span>
      );
    },
    img: ({ alt }) => <span className="muted">[image: {alt || 'not shown'}]</span>,
    // Focusable so a keyboard can scroll it; labelled so the stop says what it is.
    // A code block scrolls sideways inside its message: focusable for the same reason as a table.
    pre: ({ children }) => (
      <pre tabIndex={0} role="group" aria-label="Code block">
        {children}
      </pre>
    ),
    table: ({ children }) => (
      <div className="table-scroll" tabIndex={0} role="group" aria-label="Table">
        <table>{children}</table>
      </div>
    ),
  };
}

export function renderMarkdownTree(root: Root, onCite: CiteHandler): ReactNode {
  return toJsxRuntime(root, { Fragment, jsx, jsxs, components: components(onCite), passKeys: true, ignoreInvalidStyle: true });
}
