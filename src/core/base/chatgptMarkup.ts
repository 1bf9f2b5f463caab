/**
 * ChatGPT's inline markup, which only ChatGPT's own app can draw: private-use characters around
 * `\ue200cite\ue202turn0search19\ue201`, `\ue200filecite\ue202…\ue201`,
 * `\ue200image_group\ue202{…}\ue201` (markers for citations and image strips) and
 * `\ue200entity\ue202["kind","Name",…]\ue201` (a name shown as a link); older answers cite with
 * `【8†source】`. Markers go; an entity keeps its name. The history import strips them as it
 * reads; schema v11 strips them from turns stored by earlier versions.
 */
const INLINE_MARKUP = /([ \t]*)\ue200([a-z_]*)\ue202([^\ue200\ue201]*)\ue201/g;

/** Whether `value` may hold markup (a cheap test before `stripChatGptMarkup`). */
export function mayHoldChatGptMarkup(value: string): boolean {
  return /[\ue200-\ue2ff【]/.test(value);
}

export function stripChatGptMarkup(value: string): string {
  if (!mayHoldChatGptMarkup(value)) return value;
  return value
    .replace(INLINE_MARKUP, (_, space: string, kind: string, args: string) => {
      if (kind !== 'entity') return '';
      try {
        const parsed: unknown = JSON.parse(args);
        return Array.isArray(parsed) && typeof parsed[1] === 'string' ? `${space}${parsed[1]}` : '';
      } catch {
        // not the JSON an entity carries: drop the markup, keep the text around it
        return '';
      }
    })
    .replace(/[ \t]*【[^】\n]{0,200}?†[^】\n]{0,200}?】/g, '')
    .replace(/[\ue200-\ue2ff]/g, '');
}
