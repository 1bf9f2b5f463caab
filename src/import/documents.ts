/**
 * Documents written during a conversation (ChatGPT Canvas, Claude artifacts): each is created,
 * then patched or rewritten by later writes. What people want remembered is the final text, so
 * the parsers replay every write and store that text once, at the last write, marked as a
 * document (`[document: Title]` then the text).
 */

export type DocumentWrite =
  | { readonly kind: 'set'; readonly text: string }
  /** Replace `find` (a literal string) with `replace`, first occurrence. */
  | { readonly kind: 'replace'; readonly find: string; readonly replace: string }
  /** ChatGPT Canvas updates: a regular expression (Python syntax) and its replacement. */
  | { readonly kind: 'pattern'; readonly pattern: string; readonly replace: string; readonly all: boolean };

interface DocState {
  title: string;
  text: string;
  lastWrite: string;
}

/** Python `re.sub` replacement syntax (`\1`, `\g<1>`) to JavaScript's (`$1`), with literal `$` kept. */
function jsReplacement(python: string): string {
  return python.replace(/\$/g, '$$$$').replace(/\\g<(\d+)>|\\(\d)/g, (_, a: string | undefined, b: string | undefined) => `$${a ?? b}`);
}

function applyPattern(text: string, pattern: string, replacement: string, all: boolean): string {
  // ".*" (or "^.*$") is how a whole-document rewrite is written: in Python "." stops at a newline,
  // but the intent (and the result the user saw) is the replacement alone.
  if (/^\^?\.\*\$?$/.test(pattern)) return replacement;
  try {
    return text.replace(new RegExp(pattern, all ? 'gmu' : 'mu'), jsReplacement(replacement));
  } catch {
    return text; // a pattern JavaScript cannot read: keep the text as it was
  }
}

export class DocumentLog {
  readonly #docs = new Map<string, DocState>();

  /** Records a write to document `id` made at `at` (a key the parser uses to find the place again). */
  write(id: string, title: string, write: DocumentWrite, at: string): void {
    const doc = this.#docs.get(id) ?? { title, text: '', lastWrite: at };
    if (title) doc.title = title;
    doc.lastWrite = at;
    if (write.kind === 'set') doc.text = write.text;
    else if (write.kind === 'replace') doc.text = write.find ? doc.text.replace(write.find, () => write.replace) : doc.text;
    else doc.text = applyPattern(doc.text, write.pattern, write.replace, write.all);
    this.#docs.set(id, doc);
  }

  /** The documents whose last write was at `at`, as stored text. */
  finalAt(at: string): string[] {
    const out: string[] = [];
    for (const doc of this.#docs.values()) {
      if (doc.lastWrite === at && doc.text.trim()) out.push(documentText(doc.title, doc.text));
    }
    return out;
  }

  /** The current text of document `id` (for writes that patch it), or ''. */
  text(id: string): string {
    return this.#docs.get(id)?.text ?? '';
  }
}

export function documentText(title: string, body: string): string {
  return `[document: ${title.trim() || 'Untitled'}]\n${body.trim()}`;
}
