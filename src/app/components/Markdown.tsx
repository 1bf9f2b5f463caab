import ReactMarkdown, { defaultUrlTransform } from 'react-markdown';
import remarkGfm from 'remark-gfm';

/**
 * Model output as sanitised Markdown: react-markdown builds React elements (never innerHTML),
 * raw HTML in the text is dropped (`skipHtml`), and URLs other than http(s)/mailto are removed.
 * Citation markers "[3]" become buttons that open the cited memory.
 */
export function Markdown({ text, onCite }: { text: string; onCite?: (n: number) => void }) {
  const withCitations = onCite ? text.replace(/\[(\d{1,3})\](?!\()/g, '[\\[$1\\]](#cite-$1)') : text;
  return (
    <div className="markdown">
      <ReactMarkdown
        remarkPlugins={[remarkGfm]}
        skipHtml
        urlTransform={(url) => (url.startsWith('#cite-') ? url : /^(https?:|mailto:)/i.test(url) ? defaultUrlTransform(url) : '')}
        components={{
          a: ({ href, children }) => {
            if (href?.startsWith('#cite-') && onCite) {
              const n = Number(href.slice(6));
              return (
                <button type="button" className="cite" aria-label={`Source ${n}`} onClick={() => onCite(n)}>
                  {n}
                </button>
              );
            }
            return href ? <a href={href} target="_blank" rel="noopener noreferrer nofollow">{children}</a> : <span>{children}</span>;
          },
          img: ({ alt }) => <span className="muted">[image: {alt ?? 'not shown'}]</span>,
        }}
      >
        {withCitations}
      </ReactMarkdown>
    </div>
  );
}
