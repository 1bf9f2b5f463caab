/**
 * "Delete download" for a downloaded model (Settings → Models and Settings → This device): a
 * confirmation that says how much space it frees, disabled with the reason shown while the model
 * is in use, and afterwards a line saying what was freed and what the browser now counts as
 * stored. The model workers refuse models in use too (MODEL_IN_USE); that error is reported like
 * any other engine error.
 */
import { useState } from 'react';
import type { QueryKey } from '@tanstack/react-query';
import { useEngineMutation } from '../hooks';
import { formatBytes } from '../format';
import type { DeletedDownload } from '../../core/protocol';
import type { EngineClient } from '../engineClient';
import { ConfirmButton } from './ConfirmButton';

export interface DeletedNotice {
  readonly modelId: string;
  readonly message: string;
}

/** What the browser reports as stored by this site, or null where it reports nothing. */
async function storedBytes(): Promise<number | null> {
  const estimate = await navigator.storage?.estimate?.().catch(() => null);
  return estimate?.usage ?? null;
}

/** Runs a delete and keeps the notice of the last one (the row's controls change once the files are gone). */
export function useDeleteDownload<M>(
  run: (client: EngineClient, id: string) => Promise<DeletedDownload<M>>,
  listKey: QueryKey,
  label: (id: string) => string,
) {
  const [deleted, setDeleted] = useState<DeletedNotice | null>(null);
  const mutation = useEngineMutation(run, {
    onSuccess: (result, queryClient) => {
      queryClient.setQueryData(listKey, result.models);
      void storedBytes().then((usage) =>
        setDeleted({
          modelId: result.modelId,
          message:
            `Deleted the download of ${label(result.modelId)}: ${formatBytes(result.freedBytes)} freed.` +
            (usage === null ? '' : ` The browser now counts ${formatBytes(usage)} stored by Recollect.`),
        }),
      );
    },
  });
  return {
    deleted,
    pendingId: mutation.isPending ? mutation.variables : null,
    remove: (id: string) => {
      setDeleted(null);
      mutation.mutate(id);
    },
  };
}

export function DeleteDownloadButton({
  label,
  bytes,
  blocked,
  pending,
  onConfirm,
}: {
  readonly label: string;
  /** The download's size: what deleting it frees. */
  readonly bytes: number;
  /** Why it cannot be deleted now (in use, downloading), or null. */
  readonly blocked: string | null;
  readonly pending: boolean;
  readonly onConfirm: () => void;
}) {
  const size = formatBytes(bytes);
  return (
    <>
      <ConfirmButton
        title={`Delete ${label}`}
        confirmLabel={`Delete download (${size})`}
        onConfirm={onConfirm}
        disabled={blocked !== null || pending}
        buttonTitle={blocked ?? undefined}
        aria-label={`Delete the download of ${label}`}
        message={`Delete the downloaded files of ${label} from this device? This frees about ${size}. Your memory is not touched, and you can download it again later.`}
      >
        {pending ? 'Deleting…' : 'Delete download'}
      </ConfirmButton>
      {blocked && (
        <span className="muted" data-testid="delete-blocked">
          {blocked}
        </span>
      )}
    </>
  );
}

/** The line under a row after its download was deleted. */
export function DeletedDownloadNotice({ notice, modelId }: { readonly notice: DeletedNotice | null; readonly modelId: string }) {
  if (notice?.modelId !== modelId) return null;
  return (
    <div className="muted" role="status" data-testid="download-deleted">
      {notice.message}
    </div>
  );
}
