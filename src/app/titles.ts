/** The placeholder title of a new conversation; the rule lives in core, where the engine titles it from the first message. */
export { UNTITLED } from '../core/base/titles';
