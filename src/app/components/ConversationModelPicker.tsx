/**
 * The model of one conversation, in its header: the default of Settings, a model the endpoint
 * lists (or any name typed), or the model chosen on this device. The choice is stored with the
 * conversation and its answers use it (core/engine/conversationLlm.ts); "What was sent" names it.
 */
import { useId, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { Conversation, ConversationModel } from '../../core/base/types';
import { useEngineMutation, useEngineQuery } from '../hooks';
import { queryKeys } from '../queries';

const OTHER = 'other';

function valueOf(model: ConversationModel): string {
  return model === null ? 'default' : model.kind === 'device' ? 'device' : `endpoint:${model.name}`;
}

export function ConversationModelPicker({ conversation }: { conversation: Conversation }) {
  const qc = useQueryClient();
  const id = useId();
  const saved = useEngineQuery((q) => q.llmSettings()).data;
  const device = useEngineQuery((q) => q.deviceChoice()).data ?? null;
  const listed = useEngineQuery((q) => q.endpointModels(saved)).data ?? [];
  const [typing, setTyping] = useState(false);
  const [name, setName] = useState('');
  const mutation = useEngineMutation((c, model: ConversationModel) => c.engine.conversations.setModel(conversation.id, model), {
    invalidate: [queryKeys.conversations],
  });
  const choose = (model: ConversationModel) => {
    setTyping(false);
    // The menu follows the choice at once; the engine's answer (or a failure) refetches the list.
    qc.setQueryData<Conversation[]>(queryKeys.conversations, (list) => list?.map((c) => (c.id === conversation.id ? { ...c, model } : c)));
    mutation.mutate(model, { onError: () => void qc.invalidateQueries({ queryKey: queryKeys.conversations }) });
  };
  const deviceLabel = device ? (device.provider === 'transformers' ? device.label : 'Built-in model (Chrome)') : null;
  const defaultLabel = deviceLabel ?? (saved?.model || 'none set');
  const own = conversation.model;
  const endpointNames = [...listed];
  if (own?.kind === 'endpoint' && !endpointNames.includes(own.name)) endpointNames.unshift(own.name);
  return (
    <div className="model-picker" data-testid="model-picker">
      <label htmlFor={`${id}-model`}>Model</label>
      <select
        id={`${id}-model`}
        aria-label="Model for this conversation"
        value={typing ? OTHER : valueOf(own)}
        onChange={(e) => {
          const v = e.target.value;
          if (v === OTHER) {
            setName(own?.kind === 'endpoint' ? own.name : '');
            setTyping(true);
          } else if (v === 'default') choose(null);
          else if (v === 'device') choose({ kind: 'device' });
          else choose({ kind: 'endpoint', name: v.slice('endpoint:'.length) });
        }}
      >
        <option value="default">Default ({defaultLabel})</option>
        {endpointNames.length > 0 && (
          <optgroup label="Endpoint">
            {endpointNames.map((m) => (
              <option key={m} value={`endpoint:${m}`}>
                {m}
              </option>
            ))}
          </optgroup>
        )}
        {(deviceLabel || own?.kind === 'device') && (
          <option value="device">This device ({deviceLabel ?? 'none chosen in this browser'})</option>
        )}
        <option value={OTHER}>Another endpoint model…</option>
      </select>
      {typing && (
        <form
          className="model-name"
          onSubmit={(e) => {
            e.preventDefault();
            if (name.trim()) choose({ kind: 'endpoint', name: name.trim() });
          }}
        >
          <input
            aria-label="Endpoint model name"
            autoFocus
            value={name}
            placeholder="e.g. llama3.1:8b"
            onChange={(e) => setName(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Escape') {
                e.preventDefault();
                setTyping(false);
              }
            }}
          />
          <button type="submit" disabled={!name.trim()}>
            Use
          </button>
        </form>
      )}
    </div>
  );
}
