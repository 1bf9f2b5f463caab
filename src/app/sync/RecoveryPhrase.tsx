/**
 * A recovery phrase shown once (after turning sync on, or after "Remove my data from the relay"): the
 * twelve words numbered, a Copy button and a QR code of the phrase for another device's camera.
 * The phrase is not kept by the page: once dismissed it is gone from the screen.
 */
import { useMemo, useState } from 'react';
import qrcode from 'qrcode-generator';

export function RecoveryPhrase({ phrase, onDone }: { phrase: string; onDone: () => void }) {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const words = phrase.split(' ');
  const copy = () =>
    navigator.clipboard.writeText(phrase).then(
      () => setCopied('yes'),
      () => setCopied('failed'),
    );
  return (
    <div className="recovery-phrase" role="group" aria-label="Your recovery phrase" data-testid="recovery-phrase">
      <p>
        <strong>Write this phrase down now: it is shown once.</strong> Any device with it can read this memory; without it, no one can — not
        the relay, not us.
      </p>
      <ol className="phrase-words">
        {words.map((w, i) => (
          <li key={i}>{w}</li>
        ))}
      </ol>
      <PhraseQr phrase={phrase} />
      <div className="row">
        <button type="button" onClick={() => void copy()}>
          Copy phrase
        </button>
        <button type="button" onClick={onDone}>
          I have written it down
        </button>
      </div>
      {copied && <p role="status">{copied === 'yes' ? 'Copied.' : 'The browser did not allow copying; select the words instead.'}</p>}
    </div>
  );
}

/** The phrase as a QR code, drawn as SVG squares (no image URL, no inline HTML). */
function PhraseQr({ phrase }: { phrase: string }) {
  const cells = useMemo(() => {
    const qr = qrcode(0, 'M');
    qr.addData(phrase);
    qr.make();
    const n = qr.getModuleCount();
    const dark: [number, number][] = [];
    for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) if (qr.isDark(r, c)) dark.push([c, r]);
    return { n, dark };
  }, [phrase]);
  const size = cells.n + 8; // 4 modules of quiet zone on each side
  return (
    <svg
      className="phrase-qr"
      viewBox={`-4 -4 ${size} ${size}`}
      width={180}
      height={180}
      role="img"
      aria-label="QR code of the recovery phrase"
    >
      <rect x={-4} y={-4} width={size} height={size} fill="#fff" />
      <path d={cells.dark.map(([x, y]) => `M${x} ${y}h1v1h-1z`).join('')} fill="#000" />
    </svg>
  );
}
