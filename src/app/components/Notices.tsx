import { useEffect } from 'react';
import { useUi } from '../uiStore';

export function Notices() {
  const notices = useUi((s) => s.notices);
  const dismiss = useUi((s) => s.dismiss);
  useEffect(() => {
    // Errors stay longer than news, but none stays for good over the composer.
    const timers = notices.map((n) => setTimeout(() => dismiss(n.id), n.kind === 'info' ? 6_000 : 15_000));
    return () => timers.forEach(clearTimeout);
  }, [notices, dismiss]);
  return (
    <div className="notices" aria-live="polite">
      {notices.map((n) => (
        <div key={n.id} className={`notice ${n.kind}`} role={n.kind === 'error' ? 'alert' : 'status'}>
          <span>{n.text}</span>
          <button type="button" aria-label="Dismiss" onClick={() => dismiss(n.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
