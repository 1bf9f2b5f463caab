/** The sealed envelope and the recovery phrase: round trip, and readable failures for every way it can go wrong. */
import { describe, expect, it } from 'vitest';
import { deriveSyncKeys, openEvent, paddedSize, sealEvent, SyncEnvelopeError } from '../../src/core/sync/syncEnvelope';
import { checkRecoveryPhrase, generateRecoveryPhrase, PHRASE_WORDS, RecoveryPhraseError } from '../../src/core/sync/recoveryPhrase';
import { PHRASE, T0, TestDevice, turnText } from './syncFixtures';

const reject = async (promise: Promise<unknown>, code: string, message: RegExp) => {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  expect((error as { code?: string }).code).toBe(code);
  expect((error as Error).message).toMatch(message);
};

const realTurn = () =>
  new TestDevice('laptop', T0).emit({
    kind: 'turn.appended',
    conversationId: 'c-greenhouse',
    turnId: 't-1',
    role: 'user',
    text: turnText('ENVELOPE-MARKER'),
    occurredAt: T0,
  });

describe('sync envelope', () => {
  it('round-trips a real-length turn (prose, code block, table) and hides its length in a 2 KiB bucket', async () => {
    const keys = await deriveSyncKeys(PHRASE);
    expect(keys.ownerId).toMatch(/^[0-9a-f]{32}$/);
    const event = realTurn();
    expect(event.kind === 'turn.appended' && event.text.length).toBeGreaterThan(1_000);
    const sealed = await sealEvent(keys, event);
    expect(sealed.id).toBe(event.id);
    expect(JSON.stringify(sealed)).not.toContain('ENVELOPE-MARKER');
    expect(JSON.stringify(sealed)).not.toContain('read_humidity');
    expect(await openEvent(keys, JSON.parse(JSON.stringify(sealed)))).toEqual(event);
    const short = await sealEvent(keys, new TestDevice('laptop', T0).emit({ kind: 'memory.written', memoryId: 'm', text: 'ok' }));
    expect(atob(short.ct).length).toBe(atob(sealed.ct).length);
    expect(atob(sealed.ct).length).toBe(2048 + 16); // padded plaintext + GCM tag
    expect(paddedSize(2044)).toBe(2048);
    expect(paddedSize(2045)).toBe(4096);
  });

  it('a device typing the phrase with other spacing and capitals derives the same owner and key', async () => {
    const a = await deriveSyncKeys(PHRASE);
    const b = await deriveSyncKeys(`  ${PHRASE.toUpperCase().replaceAll(' ', '   ')}\n`);
    expect(b.ownerId).toBe(a.ownerId);
    expect((await openEvent(b, await sealEvent(a, realTurn()))).id).toBeTruthy();
  });

  it('fails readably for a wrong phrase, an altered byte, a changed event id and a malformed envelope', async () => {
    const keys = await deriveSyncKeys(PHRASE);
    const sealed = await sealEvent(keys, realTurn());
    const other = await deriveSyncKeys(generateRecoveryPhrase());
    expect(other.ownerId).not.toBe(keys.ownerId);
    await reject(openEvent(other, sealed), 'envelope-undecryptable', /could not be decrypted: it was sealed with another recovery phrase/);
    const bytes = Uint8Array.from(atob(sealed.ct), (c) => c.charCodeAt(0));
    bytes[100] = bytes[100]! ^ 1;
    const altered = { ...sealed, ct: btoa(String.fromCharCode(...bytes)) };
    await reject(openEvent(keys, altered), 'envelope-undecryptable', new RegExp(`${sealed.id} could not be decrypted.*altered`));
    const relabelled = { ...sealed, id: new TestDevice('laptop', T0).emit({ kind: 'turn.deleted', turnId: 'x' }).id };
    await reject(openEvent(keys, relabelled), 'envelope-undecryptable', /could not be decrypted/);
    await reject(openEvent(keys, { ...sealed, v: 2 }), 'envelope-malformed', /not a version-1 sealed event/);
    await reject(openEvent(keys, { ...sealed, iv: 'not base64!' }), 'envelope-malformed', /not valid base64/);
    await reject(openEvent(keys, 'a string'), 'envelope-malformed', /not a version-1 sealed event/);
    expect(SyncEnvelopeError).toBeDefined();
  });

  it('refuses to open an event whose content does not validate, naming the field', async () => {
    const keys = await deriveSyncKeys(PHRASE);
    const event = realTurn();
    // Sealed by a (hypothetical) newer or buggy writer: a role this version does not know.
    const sealed = await sealEvent(keys, { ...event, role: 'tool' } as unknown as typeof event);
    await reject(openEvent(keys, sealed), 'sync-event-invalid', new RegExp(`${event.id}.*role`));
  });
});

describe('recovery phrase', () => {
  it('generates 12 English BIP-39 words that pass the checksum, different each time', () => {
    const phrases = new Set(Array.from({ length: 20 }, generateRecoveryPhrase));
    expect(phrases.size).toBe(20);
    for (const phrase of phrases) {
      expect(phrase.split(' ')).toHaveLength(PHRASE_WORDS);
      expect(checkRecoveryPhrase(phrase)).toBe(phrase);
    }
  });

  it('says what is wrong with a mistyped phrase: word count, an unknown word, or the checksum', async () => {
    const words = PHRASE.split(' ');
    const code = (input: string) => {
      try {
        checkRecoveryPhrase(input);
        return null;
      } catch (e) {
        expect(e).toBeInstanceOf(RecoveryPhraseError);
        return [(e as RecoveryPhraseError).code, (e as Error).message];
      }
    };
    expect(code(words.slice(0, 11).join(' '))).toEqual(['word-count', 'A recovery phrase has 12 words; this one has 11.']);
    expect(code(words.map((w, i) => (i === 3 ? 'modifi' : w)).join(' '))).toEqual([
      'unknown-word',
      expect.stringMatching(/^Word 4 \("modifi"\) is not a recovery-phrase word/),
    ]);
    // Two real words swapped: every word is valid, the checksum catches it.
    const swapped = [...words];
    [swapped[0], swapped[1]] = [swapped[1]!, swapped[0]!];
    expect(code(swapped.join(' '))).toEqual(['checksum', expect.stringMatching(/mistyped as another valid word, or two are swapped/)]);
    await expect(deriveSyncKeys(swapped.join(' '))).rejects.toThrow(RecoveryPhraseError);
    await expect(deriveSyncKeys('')).rejects.toThrow(/has 0\./);
  });
});
