import { describe, expect, it } from 'vitest';
import { syncStatusText } from '../../src/app/sync/syncStatusText';
import { SYNC_OFF } from '../../src/core/protocol/sync';

const NOW = Date.UTC(2026, 10, 28, 12);

describe('syncStatusText', () => {
  it('says each state with what waits and when it last synced', () => {
    expect(syncStatusText(SYNC_OFF, NOW)).toBe('off');
    expect(syncStatusText({ ...SYNC_OFF, state: 'synced', lastSyncedAt: NOW - 10_000 }, NOW)).toBe('synced just now');
    expect(syncStatusText({ ...SYNC_OFF, state: 'synced', lastSyncedAt: NOW - 5 * 60_000 }, NOW)).toBe('synced 5 min ago');
    expect(syncStatusText({ ...SYNC_OFF, state: 'synced', lastSyncedAt: NOW - 3 * 86_400_000 }, NOW)).toBe('synced 3 days ago');
    expect(syncStatusText({ ...SYNC_OFF, state: 'syncing', pending: 1 }, NOW)).toBe('syncing 1 change');
    expect(syncStatusText({ ...SYNC_OFF, state: 'syncing', progress: { turns: 12_400, total: 48_000 } }, NOW)).toBe(
      'syncing: 12,400 of 48,000 turns',
    );
    expect(syncStatusText({ ...SYNC_OFF, state: 'offline', pending: 3 }, NOW)).toBe('offline · 3 waiting');
    expect(syncStatusText({ ...SYNC_OFF, state: 'relay-unreachable' }, NOW)).toBe('relay unreachable');
  });
});
