/** Character codes the streaming JSON readers (jsonArraySplitter.ts, jsonEntryStream.ts) track. */
export const QUOTE = 34;
export const BACKSLASH = 92;
export const COMMA = 44;
export const OPEN_BRACE = 123;
export const CLOSE_BRACE = 125;
export const OPEN_BRACKET = 91;
export const CLOSE_BRACKET = 93;
