/**
 * A ChatGPT export of `conversations` × 10 turns of about 20,000 characters each: an import of it
 * writes a transaction every 7–9 turns, so a test can act between two of them.
 */
export function longTurnExport(conversations: number): File {
  const t0 = Date.UTC(2024, 0, 1) / 1000;
  const data = Array.from({ length: conversations }, (_, c) => {
    const mapping: Record<string, unknown> = { root: { id: 'root', parent: null, children: [`c${c}m0`], message: null } };
    for (let k = 0; k < 10; k++) {
      const id = `c${c}m${k}`;
      mapping[id] = {
        id,
        parent: k ? `c${c}m${k - 1}` : 'root',
        children: k < 9 ? [`c${c}m${k + 1}`] : [],
        message: {
          id,
          author: { role: k % 2 ? 'assistant' : 'user' },
          create_time: t0 + c * 86_400 + k * 30,
          content: { content_type: 'text', parts: [`turn w${c}x${k} about the garden `.repeat(600)] },
          metadata: {},
        },
      };
    }
    return { id: `conv-${c}`, title: `Chat ${c}`, create_time: t0 + c * 86_400, current_node: `c${c}m9`, mapping };
  });
  return new File([JSON.stringify(data)], 'conversations.json');
}
