import { describe, expect, it } from 'vitest';
import { checkSqliteHeader } from '../../src/storage/databaseTransfer';

const messageOf = (bytes: Uint8Array): string => {
  try {
    checkSqliteHeader(bytes);
  } catch (e) {
    return (e as Error).message;
  }
  return 'accepted';
};

describe('checkSqliteHeader', () => {
  it('points a chat export (zip or JSON) given to Import… at Import chats…', () => {
    // A ChatGPT export: a zip whose first entry is conversations.json.
    const zip = new Uint8Array(200);
    zip.set([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00]);
    zip.set(new TextEncoder().encode('conversations.json'), 30);
    expect(messageOf(zip)).toMatch(/chat export from another service.*Import chats…/);
    expect(messageOf(new TextEncoder().encode(`\uFEFF  [{"title": "Trip", "mapping": {}}]${' '.repeat(100)}`))).toMatch(/Import chats…/);
    expect(messageOf(new TextEncoder().encode(`{"conversations": []}${' '.repeat(100)}`))).toMatch(/Import chats…/);
    // Anything else is simply not a database.
    expect(messageOf(new Uint8Array(200).fill(7))).toBe(
      'This file is not a SQLite database. Choose a .sqlite file exported from Recollect.',
    );
    expect(messageOf(new Uint8Array(0))).toMatch(/not a SQLite database/);
  });
});
