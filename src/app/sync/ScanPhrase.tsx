/**
 * The other ways to enter a recovery phrase when joining sync, beside typing it: "Scan the QR code"
 * (the other device shows it under Settings → Sync) opens the camera in a dialog and reads frames
 * until a code holding a valid phrase is seen; "Choose a picture of the code" reads a photo or a
 * screenshot of it, for a device without a camera or where the camera is refused. Either one only
 * fills the phrase box: joining stays the person's press of Join.
 *
 * The camera is on only while the dialog is open: its tracks stop on success, Cancel, Escape and
 * unmount. A failure never clears what was typed; it says what happened and what to do instead.
 * The decoders and the phrase check (qrReader.ts) are imported on first use, values and all: a
 * static import of them would put the phrase word list and jsQR in the main bundle.
 */
import { useEffect, useRef, useState } from 'react';
import { Dialog } from '../components/Dialog';
import type { QrPhrase } from './qrPhrase';

/** How often a camera frame is decoded: often enough to feel immediate, rarely enough for a phone. */
const FRAME_INTERVAL_MS = 150;
const NOT_A_PHRASE = 'This code is not a Recollect recovery phrase.';
const INSTEAD = 'Choose a picture of the code instead, or type the twelve words.';

type Note = { readonly kind: 'error' | 'done'; readonly text: string };

export function ScanPhrase({ disabled, onPhrase }: { disabled: boolean; onPhrase: (phrase: string) => void }) {
  const [scanning, setScanning] = useState(false);
  const [reading, setReading] = useState(false);
  const [note, setNote] = useState<Note | null>(null);
  const fileRef = useRef<HTMLInputElement>(null);

  const found = (phrase: string, from: string) => {
    onPhrase(phrase);
    setNote({ kind: 'done', text: `The phrase was read from ${from}. Check the relay address, then press Join with a phrase.` });
  };
  const pick = async (file: File) => {
    setReading(true);
    setNote(null);
    try {
      const { readPicture } = await import('./qrReader');
      const result = await readPicture(file);
      if (result.kind === 'phrase') found(result.phrase, 'the picture');
      else setNote({ kind: 'error', text: refusal(result) });
    } catch (e) {
      setNote({ kind: 'error', text: `${e instanceof Error ? e.message : String(e)} ${INSTEAD}` });
    } finally {
      setReading(false);
    }
  };

  return (
    <>
      <div className="row">
        <button
          type="button"
          disabled={disabled}
          onClick={() => {
            setNote(null);
            setScanning(true);
          }}
        >
          Scan the QR code
        </button>
        <button type="button" disabled={disabled || reading} onClick={() => fileRef.current?.click()}>
          {reading ? 'Reading the picture…' : 'Choose a picture of the code'}
        </button>
        <input
          ref={fileRef}
          type="file"
          accept="image/*"
          hidden
          aria-label="Picture of the QR code"
          onChange={(e) => {
            const file = e.target.files?.[0];
            e.target.value = ''; // the same file can be chosen again after a retake
            if (file) void pick(file);
          }}
        />
      </div>
      {note?.kind === 'error' && (
        <p role="alert" className="error" data-testid="scan-error">
          {note.text}
        </p>
      )}
      {note?.kind === 'done' && (
        <p role="status" data-testid="scan-done">
          {note.text}
        </p>
      )}
      {scanning && (
        <CameraScan
          onFound={(phrase) => {
            setScanning(false);
            found(phrase, 'the QR code');
          }}
          onFail={(text) => {
            setScanning(false);
            setNote({ kind: 'error', text });
          }}
          onClose={() => setScanning(false)}
        />
      )}
    </>
  );
}

function refusal(result: Exclude<QrPhrase, { kind: 'phrase' }>): string {
  return result.kind === 'not-a-phrase'
    ? `${NOT_A_PHRASE} Use the QR code shown with the phrase when sync was turned on.`
    : `No QR code was found in this picture. Take it again with the whole code sharp and in view, or type the twelve words.`;
}

interface CameraScanProps {
  readonly onFound: (phrase: string) => void;
  readonly onFail: (message: string) => void;
  readonly onClose: () => void;
}

/** The camera dialog: a live preview, read every FRAME_INTERVAL_MS until a phrase is seen. */
function CameraScan(props: CameraScanProps) {
  const videoRef = useRef<HTMLVideoElement>(null);
  const [seen, setSeen] = useState<'starting' | 'looking' | 'not-a-phrase'>('starting');
  const latest = useRef(props);
  latest.current = props;

  useEffect(() => {
    let stopped = false;
    let stream: MediaStream | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stop = () => {
      stopped = true;
      clearTimeout(timer);
      stream?.getTracks().forEach((t) => t.stop());
      if (videoRef.current) videoRef.current.srcObject = null;
    };
    const fail = (e: unknown) => {
      if (stopped) return;
      stop();
      latest.current.onFail(`The camera stopped: ${e instanceof Error ? e.message : String(e)}. ${INSTEAD}`);
    };
    const run = async () => {
      if (!navigator.mediaDevices?.getUserMedia) return latest.current.onFail(`This browser offers no camera to this page. ${INSTEAD}`);
      try {
        stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment' }, audio: false });
      } catch (e) {
        if (!stopped) latest.current.onFail(cameraProblem(e));
        return;
      }
      // Closed while the browser was asking: the camera must not stay on.
      if (stopped) return stop();
      const video = videoRef.current!;
      video.srcObject = stream;
      await video.play().catch(() => undefined); // muted + playsInline: allowed without a gesture
      const { readPhrase } = await import('./qrReader');
      if (stopped) return;
      setSeen('looking');
      const tick = async () => {
        if (stopped) return;
        if (video.readyState >= HTMLMediaElement.HAVE_CURRENT_DATA) {
          const result = await readPhrase(video);
          if (stopped) return;
          if (result.kind === 'phrase') {
            stop();
            return latest.current.onFound(result.phrase);
          }
          if (result.kind === 'not-a-phrase') setSeen('not-a-phrase');
        }
        timer = setTimeout(() => tick().catch(fail), FRAME_INTERVAL_MS);
      };
      await tick();
    };
    run().catch(fail);
    return stop;
  }, []);

  return (
    <Dialog title="Scan the QR code" onClose={() => latest.current.onClose()} closeLabel="Close the camera" testId="scan-dialog">
      <p className="muted">
        Hold the QR code shown with the recovery phrase (when sync was turned on on the other device) in front of the camera.
      </p>
      <video ref={videoRef} className="scan-video" muted playsInline aria-label="Camera view" />
      <p role="status" className={seen === 'not-a-phrase' ? 'error' : undefined} data-testid="scan-state">
        {seen === 'starting'
          ? 'Starting the camera…'
          : seen === 'looking'
            ? 'Looking for the QR code…'
            : `${NOT_A_PHRASE} Still looking for one that is.`}
      </p>
      <div className="row">
        <button type="button" onClick={() => latest.current.onClose()} data-autofocus>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}

/** What getUserMedia's rejection means to a person, and what to do instead. */
function cameraProblem(e: unknown): string {
  const name = e instanceof Error || e instanceof DOMException ? e.name : '';
  switch (name) {
    case 'NotAllowedError':
    case 'SecurityError':
      return `The camera was not allowed. ${INSTEAD} (To scan, allow the camera in the browser's site settings.)`;
    case 'NotFoundError':
    case 'OverconstrainedError':
      return `No camera was found on this device. ${INSTEAD}`;
    case 'NotReadableError':
    case 'AbortError':
      return `The camera could not be started; another app may be using it. ${INSTEAD}`;
    default:
      return `The camera could not be opened${e instanceof Error && e.message ? ` (${e.message})` : ''}. ${INSTEAD}`;
  }
}
