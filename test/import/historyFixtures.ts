/**
 * Hand-written exports in each supported format, small enough to read. The ChatGPT export has an
 * edited prompt and a regenerated answer (side branches), a hidden system message, a code-tool call
 * and its output, an image and a file, an empty conversation, an entry with no message tree, and a
 * conversation without current_node; text is mixed with accents, CJK and emoji.
 */
import { strToU8, zipSync } from 'fflate';

/** 8 May 2023 10:00 UTC, in seconds (ChatGPT's create_time unit). */
export const T0 = Date.UTC(2023, 4, 8, 10, 0) / 1000;

function node(id: string, parent: string | null, children: string[], message: Record<string, unknown> | null) {
  return { id, parent, children, message: message ? { id, ...message } : null };
}
const say = (role: string, text: string, at: number, extra: Record<string, unknown> = {}) => ({
  author: { role },
  create_time: at,
  content: { content_type: 'text', parts: [text] },
  recipient: 'all',
  metadata: {},
  ...extra,
});

export const chatGptConversations = [
  {
    id: 'conv-lisbon',
    title: 'Trip to Lisbon 🇵🇹',
    create_time: T0,
    update_time: T0 + 900,
    current_node: 'a5',
    mapping: {
      root: node('root', null, ['sys'], null),
      sys: node('sys', 'root', ['u1'], { ...say('system', '', T0), metadata: { is_visually_hidden_from_conversation: true } }),
      u1: node('u1', 'sys', ['a1'], say('user', 'I am planning a trip to Lisbon in May — any tips? 😊', T0 + 10)),
      a1: node('a1', 'u1', ['u2a', 'u2b'], say('assistant', 'Try the pastéis de nata in Belém.', T0 + 20)),
      u2a: node('u2a', 'a1', ['a2a'], say('user', 'What about Porto instead?', T0 + 30)),
      a2a: node('a2a', 'u2a', [], say('assistant', 'Porto is lovely in spring.', T0 + 40)),
      u2b: node('u2b', 'a1', ['a2b1', 'a2b2'], say('user', 'Which neighbourhood should I stay in?', T0 + 50)),
      a2b1: node('a2b1', 'u2b', [], say('assistant', 'Alfama, without a doubt.', T0 + 60)),
      a2b2: node('a2b2', 'u2b', ['tool1'], {
        author: { role: 'assistant' },
        create_time: T0 + 70,
        recipient: 'python',
        content: { content_type: 'code', language: 'python', text: 'print(1)' },
      }),
      tool1: node('tool1', 'a2b2', ['a3'], {
        author: { role: 'tool', name: 'python' },
        create_time: T0 + 71,
        content: { content_type: 'execution_output', text: '1' },
      }),
      a3: node('a3', 'tool1', ['u4'], {
        author: { role: 'assistant' },
        create_time: T0 + 80,
        recipient: 'all',
        content: {
          content_type: 'multimodal_text',
          parts: ['Stay in Príncipe Real.', { content_type: 'image_asset_pointer', asset_pointer: 'file-service://x' }],
        },
      }),
      u4: node(
        'u4',
        'a3',
        ['a4'],
        say('user', 'Here is my itinerary.', T0 + 90, { metadata: { attachments: [{ name: 'itinerary.pdf' }] } }),
      ),
      a4: node('a4', 'u4', ['a5'], {
        author: { role: 'assistant' },
        create_time: T0 + 95,
        content: { content_type: 'thoughts', thoughts: [] },
      }),
      a5: node('a5', 'a4', [], say('assistant', 'Noted: 3 days in Lisbon, then Sintra.', T0 + 100)),
    },
  },
  { id: 'conv-empty', title: 'New chat', create_time: T0 + 86_400, current_node: 'root', mapping: { root: node('root', null, [], null) } },
  { id: 'conv-broken', title: 'No tree', create_time: T0 },
  {
    id: 'conv-coffee',
    title: '',
    create_time: T0 + 2 * 86_400,
    mapping: {
      r: node('r', null, ['c1'], null),
      c1: node('c1', 'r', ['c2'], say('user', '我喜欢咖啡 ☕ — recommend a café?', T0 + 2 * 86_400 + 5)),
      c2: node('c2', 'c1', [], say('assistant', 'A Brasileira in Chiado is a classic.', T0 + 2 * 86_400 + 9)),
    },
  },
];

/** Turns expected from the ChatGPT fixture, in order (the branch ending at current_node). */
export const lisbonTurns = [
  'I am planning a trip to Lisbon in May — any tips? 😊',
  'Try the pastéis de nata in Belém.',
  'Which neighbourhood should I stay in?',
  'Stay in Príncipe Real.\n[image]',
  'Here is my itinerary.\n[file: itinerary.pdf]',
  'Noted: 3 days in Lisbon, then Sintra.',
];

export function chatGptJson(): string {
  return JSON.stringify(chatGptConversations, null, 1);
}

/** A ChatGPT export .zip as the service ships it (conversations.json beside other files). */
export function chatGptZip(): Uint8Array {
  return zipSync({
    'user.json': strToU8('{"id":"user-1"}'),
    'conversations.json': strToU8(chatGptJson()),
    'chat.html': strToU8('<html></html>'),
  });
}

export const claudeConversations = [
  {
    uuid: 'c-1',
    name: 'Sourdough starter',
    created_at: '2024-02-01T09:00:00.000Z',
    updated_at: '2024-02-01T09:05:00.000Z',
    chat_messages: [
      {
        uuid: 'm-1',
        sender: 'human',
        text: 'My starter smells like acetone 🍞',
        content: [{ type: 'text', text: 'My starter smells like acetone 🍞' }],
        created_at: '2024-02-01T09:00:00.000Z',
        attachments: [],
        files: [{ file_name: 'photo.jpg' }],
      },
      {
        uuid: 'm-2',
        sender: 'assistant',
        text: '',
        content: [
          { type: 'thinking', thinking: 'hmm' },
          { type: 'text', text: 'Feed it more often: it is hungry.' },
          { type: 'tool_use', name: 'web_search', input: {} },
        ],
        created_at: '2024-02-01T09:01:00.000Z',
      },
      { uuid: 'm-3', sender: 'human', text: 'Danke schön — größer Topf?', created_at: '2024-02-01T09:02:00.000Z' },
    ],
  },
  { uuid: 'c-2', name: 'Empty', created_at: '2024-02-02T09:00:00.000Z', chat_messages: [] },
  { name: 'no uuid', chat_messages: [{ sender: 'human', text: 'lost' }] },
];

export const locomoSamples = [
  {
    sample_id: 'conv-1',
    conversation: {
      speaker_a: 'Caroline',
      speaker_b: 'Melanie',
      session_1_date_time: '1:56 pm on 8 May, 2023',
      session_1: [
        { speaker: 'Caroline', dia_id: 'D1:1', text: 'I went to a support group yesterday.' },
        { speaker: 'Melanie', dia_id: 'D1:2', text: 'That sounds brave!', blip_caption: 'a photo of a sunset' },
      ],
      session_2_date_time: '7:00 pm on 25 May, 2023',
      session_2: [{ speaker: 'Melanie', dia_id: 'D2:1', text: 'I ran a charity race on Saturday.' }],
    },
    qa: [{ question: 'When did Melanie run?', answer: '20 May 2023', evidence: ['D2:1'], category: 2 }],
  },
];

export const longMemEvalQuestions = [
  {
    question_id: 'q1',
    question: 'Where did I park?',
    question_date: '2023/05/30 (Tue) 10:00',
    haystack_session_ids: ['s-a', 's-b'],
    haystack_dates: ['2023/05/20 (Sat) 02:21', '2023/05/21 (Sun) 09:00'],
    haystack_sessions: [
      [
        { role: 'user', content: 'I parked on level 3 of the airport garage.' },
        { role: 'assistant', content: 'Noted: level 3.' },
      ],
      [
        { role: 'user', content: 'Any dinner ideas?' },
        { role: 'assistant', content: 'Try a risotto.' },
      ],
    ],
  },
  {
    question_id: 'q2',
    question: 'What should I cook?',
    question_date: '2023/05/30 (Tue) 10:00',
    haystack_session_ids: ['s-b'],
    haystack_dates: ['2023/05/21 (Sun) 09:00'],
    haystack_sessions: [
      [
        { role: 'user', content: 'Any dinner ideas?' },
        { role: 'assistant', content: 'Try a risotto.' },
      ],
    ],
  },
];

export const transcript = `# Planning the garden

## 3 March 2024
Alice: Should we plant tomatoes this year? 🍅
Assistant: Yes — start them indoors in late March.
They need warmth to germinate.

## 10 March 2024
[09:30] Alice: The seedlings are up!
**Bob:** Great, I'll build the raised bed.
`;

/**
 * ChatGPT times as the service writes them: epoch seconds with microseconds (`create_time`,
 * `update_time`), which times 1000 are not whole ms.
 */
export const T_MICRO = 1_715_000_000.123456;
export const chatGptMicroseconds = [
  {
    id: 'conv-micro',
    title: 'Microsecond times',
    create_time: T_MICRO,
    update_time: T_MICRO + 42.987654,
    current_node: 'm2',
    mapping: {
      root: node('root', null, ['m1'], null),
      m1: node('m1', 'root', ['m2'], say('user', 'When was the Treaty of Tordesillas signed?', T_MICRO + 1.000_777)),
      m2: node('m2', 'm1', [], say('assistant', 'On 7 June 1494, between Castile and Portugal.', T_MICRO + 3.456_789)),
    },
  },
];

/**
 * "Branch in new chat": ChatGPT copies the messages before the branch point, ids included, into a
 * new conversation. Exports list the newest conversation first, so the copy comes before the
 * original. The third conversation carries a message id too long to store: it is refused.
 */
const shared = {
  s1: say('user', 'Draft a packing list for a week of hiking in the Dolomites.', T0 + 100),
  s2: say('assistant', 'Boots, layers, rain shell, map, headlamp, first-aid kit.', T0 + 110),
};
export const chatGptBranchCopies = [
  {
    id: 'conv-branch',
    title: 'Branch · Packing list',
    create_time: T0 + 5_000,
    update_time: T0 + 5_100,
    current_node: 'b3',
    mapping: {
      root: node('root', null, ['s1'], null),
      s1: node('s1', 'root', ['s2'], shared.s1),
      s2: node('s2', 's1', ['b3'], shared.s2),
      b3: node('b3', 's2', [], say('user', 'Make it a list for via ferrata instead.', T0 + 5_050)),
    },
  },
  {
    id: 'conv-original',
    title: 'Packing list',
    create_time: T0 + 90,
    update_time: T0 + 200,
    current_node: 'o4',
    mapping: {
      root: node('root', null, ['s1'], null),
      s1: node('s1', 'root', ['s2'], shared.s1),
      s2: node('s2', 's1', ['o3'], shared.s2),
      o3: node('o3', 's2', ['o4'], say('user', 'Add snacks for the huts.', T0 + 150)),
      o4: node('o4', 'o3', [], say('assistant', 'Trail mix, cheese, speck and dark chocolate.', T0 + 160)),
    },
  },
  {
    id: 'conv-refused',
    title: 'Refused',
    create_time: T0 + 300,
    current_node: 'x'.repeat(300),
    mapping: {
      root: node('root', null, ['x'.repeat(300)], null),
      ['x'.repeat(300)]: node('x'.repeat(300), 'root', [], say('user', 'This message id is far too long to be stored.', T0 + 301)),
    },
  },
];

/** Claude's root parent id: messages with no earlier message point at it. */
const CLAUDE_ROOT = '00000000-0000-4000-8000-000000000000';
const claudeAt = (minute: number) => `2025-06-01T10:${String(minute).padStart(2, '0')}:00.000000Z`;
const claudeSay = (uuid: string, parent: string, sender: string, body: string, minute: number, extra: Record<string, unknown> = {}) => ({
  uuid,
  parent_message_uuid: parent,
  sender,
  text: body,
  content: [{ type: 'text', text: body }],
  created_at: claudeAt(minute),
  updated_at: claudeAt(minute),
  attachments: [],
  files: [],
  ...extra,
});

/**
 * A 2025–2026 Claude export: an edited prompt (h2a → h2b) and a retried answer (a2b1 → a2b2) are
 * listed flat with parent links; the user last saw h1, a1, h2b, a2b2. The second conversation has
 * a long paste (an attachment with extracted_content) and an artifact created then updated.
 */
export const claudeBranchedConversations = [
  {
    uuid: 'c-names',
    name: 'Naming the starter',
    created_at: claudeAt(0),
    updated_at: claudeAt(6),
    chat_messages: [
      claudeSay('h1', CLAUDE_ROOT, 'human', 'What is a good name for a sourdough starter?', 0),
      claudeSay('a1', 'h1', 'assistant', 'How about Clint Yeastwood?', 1),
      claudeSay('h2a', 'a1', 'human', 'Something more elegant, please.', 2),
      claudeSay('a2a', 'h2a', 'assistant', 'Audrey Hepburn-loaf.', 3),
      claudeSay('h2b', 'a1', 'human', 'Something funnier, please.', 4),
      claudeSay('a2b1', 'h2b', 'assistant', 'Bread Pitt.', 5),
      claudeSay('a2b2', 'h2b', 'assistant', 'Jake Gyllenhal-dough.', 6),
    ],
  },
  {
    uuid: 'c-doc',
    name: 'Cover letter',
    created_at: claudeAt(10),
    updated_at: claudeAt(13),
    chat_messages: [
      claudeSay('d1', CLAUDE_ROOT, 'human', 'Turn my notes into a cover letter.', 10, {
        attachments: [
          {
            file_name: 'paste.txt',
            file_size: 120,
            file_type: 'txt',
            extracted_content: 'Notes: eight years of bridge inspection; chartered engineer; moving to Porto in May.',
          },
        ],
      }),
      {
        ...claudeSay('d2', 'd1', 'assistant', '', 11),
        text: '',
        content: [
          { type: 'text', text: 'Here is a first draft.' },
          {
            type: 'tool_use',
            name: 'artifacts',
            input: {
              id: 'letter',
              type: 'text/markdown',
              title: 'Cover letter',
              command: 'create',
              content: 'Dear hiring team,\n\nI have inspected bridges for eight years.\n\nBest regards',
            },
          },
        ],
      },
      claudeSay('d3', 'd2', 'human', 'Mention that I am chartered.', 12),
      {
        ...claudeSay('d4', 'd3', 'assistant', '', 13),
        text: '',
        content: [
          {
            type: 'tool_use',
            name: 'artifacts',
            input: { id: 'letter', command: 'update', old_str: 'for eight years.', new_str: 'for eight years as a chartered engineer.' },
          },
          { type: 'text', text: 'Done: the letter now says you are chartered.' },
        ],
      },
    ],
  },
];

/** As claude-conversation-extractor and similar tools write a session: a heading per speaker, metadata lines first. */
export const headingTranscript = `# Claude Conversation Log

Session ID: 3f2a9c1e-5b7d-4e8a-9c0f-2d1b3a4c5e6f
Date: 2025-07-14 09:12:44

---

## 👤 User

Can you explain how HTTP caching works?

## 🤖 Claude

Sure. HTTP caching is controlled by response headers:

- **Cache-Control**: how long a response may be reused.
- **ETag**: a validator the browser sends back with If-None-Match.

Input: a request for /index.html
Output: 304 Not Modified when nothing changed.

## 👤 User

What about service workers?

## 🤖 Claude

A service worker intercepts fetches and can answer from its own cache first.
`;

/** Bold labels per speaker; the answer's own bullets are bold labels too (they are not speakers). */
export const boldLabelTranscript = `**Human**: How do I format text in Markdown?

**GPT**: Markdown has a few basics:

- **Headers**: start a line with \`#\`.
- **Emphasis**: wrap words in \`*\` or \`**\`.
- **Lists**: start lines with \`-\` or \`1.\`.

**Human**: And tables?

**GPT**: Use pipes and dashes:

| Fruit | Price |
|-------|-------|
| 柿 (kaki) | ¥300 |
`;

/** Name: lines, with an answer holding a code block (# comments, key: value lines) and a Note: line. */
export const nameLineTranscript = `User: Write a docker compose file for postgres.
ChatGPT: Here it is:
\`\`\`yaml
# the database
services:
  db:
    image: postgres:16
\`\`\`
Note: change the password before you deploy.
User: Thanks! Can I add pgadmin?
ChatGPT: Yes — add a second service next to db.
`;

/** Two names, neither recognisable as the assistant: the reading must be confirmed. */
export const ambiguousTranscript = `Mira: Did you book the ferry to Hydra?
Pi: Not yet — the 9:30 sails daily from Piraeus.
Mira: Book it for Friday then.
Pi: Done. Seats 14A and 14B.
`;

const toolSays = (name: string, parts: unknown[], at: number) => ({
  author: { role: 'tool', name },
  create_time: at,
  content: { content_type: 'multimodal_text', parts },
  recipient: 'all',
  metadata: {},
});
const callTool = (recipient: string, body: unknown, at: number) => ({
  author: { role: 'assistant' },
  create_time: at,
  recipient,
  content: { content_type: 'code', language: 'json', text: JSON.stringify(body) },
  metadata: {},
});

/**
 * A ChatGPT conversation with what people most want kept: an uploaded photo (an image part and an
 * attachment for the same file), a Canvas document created then updated, answers with citation
 * markup (search citations, file citations, an image strip, an entity, an old 【8†source】) and an
 * image generated by a tool.
 */
export const chatGptRich = [
  {
    id: 'conv-rich',
    title: 'Dolomites trip',
    create_time: T0 + 7_000,
    update_time: T0 + 7_400,
    current_node: 'a6',
    mapping: {
      root: node('root', null, ['u1'], null),
      u1: node('u1', 'root', ['a1'], {
        author: { role: 'user' },
        create_time: T0 + 7_001,
        recipient: 'all',
        content: {
          content_type: 'multimodal_text',
          parts: [
            { content_type: 'image_asset_pointer', asset_pointer: 'file-service://file-abc', width: 800, height: 600 },
            'What should I pack for this trail?',
          ],
        },
        metadata: {
          attachments: [
            { id: 'file-abc', name: 'trail.png', mime_type: 'image/png' },
            { id: 'file-def', name: 'route.gpx', mime_type: 'application/gpx+xml' },
          ],
        },
      }),
      a1: node(
        'a1',
        'u1',
        ['t1'],
        callTool(
          'canmore.create_textdoc',
          { name: 'Packing checklist', type: 'document', content: '# Packing\n- boots\n- map' },
          T0 + 7_010,
        ),
      ),
      t1: node('t1', 'a1', ['a2'], toolSays('canmore.create_textdoc', ['Successfully created text document.'], T0 + 7_011)),
      a2: node('a2', 't1', ['u2'], say('assistant', 'I made a checklist in a document.', T0 + 7_012)),
      u2: node('u2', 'a2', ['a3'], say('user', 'Add a headlamp.', T0 + 7_100)),
      a3: node(
        'a3',
        'u2',
        ['t2'],
        callTool(
          'canmore.update_textdoc',
          { updates: [{ pattern: '- map', multiple: false, replacement: '- map\n- headlamp' }] },
          T0 + 7_110,
        ),
      ),
      t2: node('t2', 'a3', ['a4'], toolSays('canmore.update_textdoc', ['Successfully updated text document.'], T0 + 7_111)),
      a4: node(
        'a4',
        't2',
        ['u3'],
        say(
          'assistant',
          'Added. A good headlamp lasts 40 hours \ue200cite\ue202turn0search3\ue202turn0search7\ue201 and your notes agree \ue200filecite\ue202turn1file0\ue201.\n\ue200image_group\ue202{"query":["Tre Cime di Lavaredo"]}\ue201\nAsk \ue200entity\ue202["people","Reinhold Messner"]\ue201 about it 【8†source】.',
          T0 + 7_112,
        ),
      ),
      u3: node('u3', 'a4', ['a5'], say('user', 'Draw the Tre Cime at dawn.', T0 + 7_200)),
      a5: node('a5', 'u3', ['t3'], callTool('dalle.text2im', { prompt: 'The Tre Cime di Lavaredo at dawn' }, T0 + 7_201)),
      t3: node(
        't3',
        'a5',
        ['a6'],
        toolSays(
          'dalle.text2im',
          [{ content_type: 'image_asset_pointer', asset_pointer: 'file-service://file-img', width: 1024, height: 1024 }],
          T0 + 7_230,
        ),
      ),
      a6: node('a6', 't3', [], say('assistant', 'Here is the Tre Cime at dawn.', T0 + 7_231)),
    },
  },
];

/** The expected turns of chatGptRich, in order. */
export const richTurns = [
  'What should I pack for this trail?'.replace(/^/, '[image]\n') + '\n[file: route.gpx]',
  'I made a checklist in a document.',
  'Add a headlamp.',
  '[document: Packing checklist]\n# Packing\n- boots\n- map\n- headlamp',
  'Added. A good headlamp lasts 40 hours and your notes agree.\n\nAsk Reinhold Messner about it.',
  'Draw the Tre Cime at dawn.',
  '[image]\nHere is the Tre Cime at dawn.',
];

/** A 2026 export whose conversations are split over conversations-000.json and conversations-001.json. */
export function chatGptShardedZip(): Uint8Array {
  return zipSync({
    'conversations-000.json': strToU8(JSON.stringify(chatGptRich)),
    'conversations-001.json': strToU8(JSON.stringify(chatGptMicroseconds)),
    'user.json': strToU8('{}'),
  });
}
