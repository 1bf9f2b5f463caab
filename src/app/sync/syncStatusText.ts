/**
 * Sync's status in words (Settings → Sync and the status line): what is happening, how many changes
 * wait, and when this device last had nothing left to send or read.
 */
import type { SyncStatus } from '../../core/protocol/sync';
import { formatCount } from '../../core/base/numbers';
import { plural } from '../format';

/** "synced · 2 min ago", "syncing 12 changes", "12,400 of 48,000 turns", "offline", "relay unreachable". */
export function syncStatusText(status: SyncStatus, now: number = Date.now()): string {
  switch (status.state) {
    case 'off':
      return 'off';
    case 'synced':
      return status.lastSyncedAt === null ? 'synced' : `synced ${ago(now - status.lastSyncedAt)}`;
    case 'syncing':
      if (status.progress) return `syncing: ${formatCount(status.progress.turns)} of ${formatCount(status.progress.total)} turns`;
      return status.pending > 0 ? `syncing ${plural(status.pending, 'change')}` : 'syncing';
    case 'offline':
      return status.pending > 0 ? `offline · ${formatCount(status.pending)} waiting` : 'offline';
    case 'relay-unreachable':
      return status.pending > 0 ? `relay unreachable · ${formatCount(status.pending)} waiting` : 'relay unreachable';
  }
}

function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 45) return 'just now';
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.round(m / 60);
  if (h < 48) return `${h} h ago`;
  return `${Math.round(h / 24)} days ago`;
}
