/** Conversation titles from the first message; the rule lives in core so the engine uses the same one. */
export { UNTITLED, titleFrom } from '../core/base/titles';
