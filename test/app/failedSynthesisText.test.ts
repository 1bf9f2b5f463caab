import { describe, expect, it } from 'vitest';
import { failedSynthesisText } from '../../src/app/components/FailedSynthesis';

describe('failedSynthesisText', () => {
  it('says what could not be summarised, or nothing when nothing failed', () => {
    expect(failedSynthesisText({ episodes: 0, themes: 0, profileUpdates: 0 })).toBeNull();
    expect(failedSynthesisText({ episodes: 3, themes: 0, profileUpdates: 0 })).toBe('3 episodes could not be summarised');
    expect(failedSynthesisText({ episodes: 1, themes: 2, profileUpdates: 0 })).toBe('1 episode and 2 themes could not be summarised');
    expect(failedSynthesisText({ episodes: 1, themes: 0, profileUpdates: 1 })).toBe(
      '1 episode could not be summarised, nor your profile updated',
    );
    expect(failedSynthesisText({ episodes: 0, themes: 0, profileUpdates: 1 })).toBe('Your profile could not be updated');
  });
});
