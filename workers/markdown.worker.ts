/**
 * Markdown worker: wiring only. Parses one message's Markdown into a safe, bounded element tree
 * (src/app/markdown/markdownTree.ts) off the page's thread; the page terminates it at a deadline
 * (src/app/markdown/formatOffThread.ts).
 */
import '../src/core/base/zodJitless'; // first: before any schema is built (see the module)
import * as Comlink from 'comlink';
import { markdownTree } from '../src/app/markdown/markdownTree';
import { resultify, type MarkdownWorkerApi } from '../src/core/protocol';

const api: MarkdownWorkerApi = { format: (text, options) => markdownTree(text, options) };
Comlink.expose(resultify(api));
