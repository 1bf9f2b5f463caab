import { useUi } from '../uiStore';
import { useExportDownload } from './DataActions';

/**
 * Always on screen during a temporary session (a window that cannot keep files): what is said here
 * is forgotten when the window closes, and Export is the one way to keep it.
 */
export function TemporarySessionBanner() {
  const temporary = useUi((s) => s.temporarySession && s.ownership === 'owner');
  const exporter = useExportDownload();
  if (!temporary) return null;
  return (
    <div className="temporary-session" role="status" data-testid="temporary-session">
      <span>Temporary session — nothing is kept after this window closes.</span>
      <button type="button" onClick={() => void exporter.download()} disabled={exporter.pending}>
        {exporter.pending ? 'Exporting…' : 'Export'}
      </button>
    </div>
  );
}
