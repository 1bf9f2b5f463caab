import { describe, expect, it } from 'vitest';
import { remainingDraft } from '../../src/app/explorer/SavedMemoriesTab';

describe('"Add a memory" after a save', () => {
  it('clears only the text that was sent, keeping what was typed meanwhile', () => {
    expect(remainingDraft('I am vegetarian.', 'I am vegetarian.')).toBe('');
    expect(remainingDraft('I am vegetarian. My passport ends in 42.', 'I am vegetarian.')).toBe('My passport ends in 42.');
    expect(remainingDraft('Something else entirely', 'I am vegetarian.')).toBe('Something else entirely');
    expect(remainingDraft('', 'I am vegetarian.')).toBe('');
  });
});
