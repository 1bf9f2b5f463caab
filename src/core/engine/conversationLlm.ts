/**
 * Which LLM answers in a conversation with a model of its own (Conversation.model): the endpoint of
 * Settings asked for another model by name, or the model chosen on this device. With no model of
 * its own a conversation follows the default (LlmChoice.current: the device model when one is
 * chosen, else the endpoint). A choice that cannot be honoured fails with a message saying what to
 * do — it never falls back silently to another model, since the person chose this one.
 */
import { RecollectError } from '../base/errors';
import type { Llm, LlmJsonRequest, LlmRequest } from '../base/ports';
import type { ConversationModel } from '../base/types';

export interface LlmsInUse {
  /** The default: the device model when one is chosen, else the endpoint. */
  readonly current: Llm | null;
  readonly endpoint: Llm | null;
  readonly device: Llm | null;
}

export function conversationLlm(llms: LlmsInUse, model: ConversationModel): Llm | null {
  if (model === null) return llms.current;
  if (model.kind === 'device') {
    if (llms.device) return llms.device;
    throw new RecollectError(
      'LLM_NOT_CONFIGURED',
      'This conversation answers with the model on this device, but none is chosen in this browser. Choose one in Settings → This device, or pick another model in the conversation header. Your message is stored.',
    );
  }
  if (!llms.endpoint)
    throw new RecollectError(
      'LLM_NOT_CONFIGURED',
      `This conversation answers with the endpoint model "${model.name}", but no endpoint is connected. Connect one in Settings, or pick another model in the conversation header. Your message is stored.`,
    );
  return withModel(llms.endpoint, model.name);
}

/** The endpoint's client with every request naming `name` as its model. */
function withModel(llm: Llm, name: string): Llm {
  return {
    ...(llm.contextTokens !== undefined ? { contextTokens: llm.contextTokens } : {}),
    complete: (req: LlmRequest) => llm.complete({ ...req, model: name }),
    stream: (req: LlmRequest) => llm.stream({ ...req, model: name }),
    completeJson: <T>(req: LlmJsonRequest<T>) => llm.completeJson({ ...req, model: name }),
  };
}
