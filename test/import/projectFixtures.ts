/**
 * Exports with projects, written from public descriptions of the formats (2025–2026):
 *
 * - ChatGPT: a project chat in conversations.json carries `gizmo_id` and `conversation_template_id`
 *   `g-p-` + 32 hex digits and `gizmo_type: "snorlax"`; a custom GPT's chat carries a `g-…` id
 *   with `gizmo_type: "gpt"`. The export has no list of projects and no project names.
 * - Claude: projects.json is an array of `{uuid, name, description, is_private, is_starter_project,
 *   prompt_template, created_at, updated_at, creator, docs: [{uuid, filename, content, created_at}]}`
 *   (later exports: one projects/<uuid>.json per project). conversations.json entries carry no
 *   project id (`uuid, name, summary, created_at, updated_at, account, chat_messages`), so which
 *   chat was in which project cannot be read from the export.
 *
 * Turns are real-length (≈1,100 characters, code blocks and tables), as real exports' are.
 */
import { strToU8, zipSync } from 'fflate';

/** 3 March 2025 09:00 UTC, in seconds. */
export const P0 = Date.UTC(2025, 2, 3, 9, 0) / 1000;

export const THESIS_PROJECT = 'g-p-685bb57d8cec8191985f702d1b8f32dd';
export const CUSTOM_GPT = 'g-2fkFE8rbu';

const THESIS_ASK = `I'm writing chapter three of my thesis on soil moisture in the north plot and I need the calibration section to be watertight before my supervisor meeting on Thursday. The capacitive sensors (model A3, six of them) drift after each heavy storm, and I've been correcting them against the gravimetric samples we took every fortnight. Here is the table of offsets I have so far:

| plot | sensor | offset (m³/m³) | samples |
|---|---|---|---|
| north | A3-1 | 0.12 | 14 |
| north | A3-2 | 0.09 | 14 |
| south | A3-4 | 0.03 | 11 |

And this is how I apply them at the moment:

\`\`\`python
def corrected(raw, offset):
    return raw - offset
\`\`\`

My worry is that a single constant offset per sensor hides the drift after storms: the residuals grow for about five days after more than 30 mm of rain, then settle. Should I model the offset as a function of days since the last storm, and how would I justify that choice in the methods section without it looking like I tuned it to the data?`;

const THESIS_ANSWER = `A constant offset is defensible only if the residuals are stationary, and your description says they are not: they rise after storms and decay over roughly five days. That pattern is physical (the soil around the probe settles and re-wets unevenly), so modelling it is a correction for a known mechanism rather than tuning.

A simple form with one extra parameter per sensor:

\`\`\`python
import math

def corrected(raw, base_offset, storm_offset, days_since_storm, tau=2.0):
    # storm_offset decays with time constant tau (days) after a storm over 30 mm
    return raw - base_offset - storm_offset * math.exp(-days_since_storm / tau)
\`\`\`

For the methods section:

1. State the mechanism and cite field work on probe re-settling after wetting.
2. Fit \`tau\` once on the first season and hold it fixed for the second season, so the second season is an honest test.
3. Report the residuals both ways in a table (constant offset vs decaying offset), with RMSE per sensor.

| model | RMSE north | RMSE south |
|---|---|---|
| constant | fill in | fill in |
| decaying | fill in | fill in |

If the decaying model does not beat the constant one on the held-out season, say so and keep the simpler model; that sentence protects you more than any extra parameter would.`;

const THESIS_FOLLOW = `The decaying model wins on the held-out season for the north plot (RMSE 0.021 against 0.034) but not for the south plot, where the two are within 0.002 of each other. The south plot is sandier and drains within a day, so I suspect there is simply no settling effect to correct there. I'd like to keep one method for the whole chapter if I can, because my supervisor dislikes per-site exceptions. Can I fit tau per soil type instead of per sensor, and if the fitted tau for sand comes out below one day, is it legitimate to report that as "no measurable post-storm drift" rather than as a separate model? Also, how do I phrase the limitation that I only have two seasons of data, without undermining the whole calibration chapter? I want something like a paragraph I can adapt, not a full rewrite: the examiners are soil physicists and will read this section closely, so the wording matters more than the maths here. One more detail: the gravimetric samples were taken at 10 cm depth while the sensors sit at 12 cm, and I have not corrected for that two-centimetre difference anywhere yet, which I think deserves a sentence too.`;

const THESIS_FOLLOW_ANSWER = `Yes: fitting tau per soil type is the cleaner design, because it ties the parameter to the mechanism (how fast the soil around the probe settles) instead of to individual instruments. With two soil types you have two values of tau, each fitted on season one and tested on season two.

If the sand's tau comes out below one day, then at your daily resolution the decaying term is indistinguishable from zero, and reporting it as "no measurable post-storm drift at daily resolution" is accurate. Keep the model the same and let the data say the term vanishes; that is one method, not a per-site exception.

A limitation paragraph you can adapt:

> The calibration rests on two growing seasons. The post-storm correction was fitted on the first and evaluated on the second; with more seasons, the decay constant could be estimated with a confidence interval rather than a single held-out comparison. The sampling depth (10 cm) differs from the sensor depth (12 cm); over this range the moisture gradient measured in the profile pits was small (see Table 3.4), and no depth correction was applied.

\`\`\`text
tau (loam)  = 2.3 days   fitted 2023, tested 2024
tau (sand)  < 1 day      no measurable drift at daily resolution
\`\`\`

Check the profile-pit gradient before you keep that last sentence: if it is not small, the depth difference needs its own correction.`;

const GRANT_ASK = `For the same thesis project, I need to write the data management section of a small grant application (the department's travel fund, which asks for one page). The funder wants to know where the raw sensor logs live, how they are backed up, who can read them, and what happens to them after the project ends. Right now the logs are CSV files on the field laptop, synced nightly to the university's network drive, and I keep a copy on an external disk at home, which I suspect they will not like. The files look like this:

\`\`\`csv
timestamp,sensor,raw,temp_c
2024-06-01T00:00:00Z,A3-1,0.311,14.2
2024-06-01T00:15:00Z,A3-1,0.309,14.0
\`\`\`

About 40 MB per season. There is no personal data in them, only the plot coordinates, which are not sensitive. The funder template has four headings: storage, access, preservation, and sharing. I'd like a draft for each heading, two or three sentences each, written so that it sounds like a plan rather than a description of what I happen to do now, and honest about the home copy, which I would rather replace with something the university provides. Is there a standard repository for soil data I should name for the preservation part, and should I mention a licence for sharing?`;

const GRANT_ANSWER = `Here is a draft under the funder's four headings; replace the bracketed parts.

**Storage.** Raw sensor logs (CSV, about 40 MB per season) are written to the field laptop and synchronised nightly to the university's managed network storage, which is backed up daily with 30-day retention. The home copy will be replaced by the university's second-site backup [name of service] from [month].

**Access.** Read and write access is limited to the project team through university accounts; the data contain no personal information, and plot coordinates are not sensitive.

**Preservation.** At the end of the project the raw logs, the calibration code and the fitted parameters will be deposited in [the national soil data repository or the university's research data repository], with a README describing columns and units:

| column | unit | note |
|---|---|---|
| timestamp | ISO 8601, UTC | 15-minute interval |
| raw | m³/m³ | before calibration |
| temp_c | °C | probe temperature |

**Sharing.** The deposited data will be released under CC BY 4.0 with a DOI, cited in the thesis.

Name a repository your field already uses (ask your library which one your department deposits in); funders read a named repository as a plan, a generic "a repository" as an intention.`;

const GPT_ASK = `Can you turn these notes into a packing list for the house move on the 14th? We have two adults, a toddler and a cat, and the van is booked for 8 am. Notes: kitchen mostly packed except the kettle, two mugs, the toddler's plates and the cat food; bedding for the first night must be in the car, not the van; the router and its cables need to go in a box marked "open first"; the cat travels in her carrier on the back seat with a towel over it; documents (passports, the new lease, the removal company's invoice) travel with me in the backpack. I also need a short list of what to do at the old flat after the van leaves: meter readings with photos, keys to the letting agent by 5 pm, a last check of the cupboards above the fridge, which we always forget. Please make it a checklist I can print on one page, grouped by where each thing travels (car, van, backpack), and a second short list for the old flat, in the order we will actually do things on the day, starting from when the van arrives. If anything looks missing for a toddler's first night in a new place, add it and mark it as a suggestion so I can tell what came from my notes.`;

const GPT_ANSWER = `**Moving day — 14th (van 8:00)**

Car
- [ ] Bedding for the first night (both beds and the cot)
- [ ] Cat in her carrier, back seat, towel over it
- [ ] Kettle, two mugs, the toddler's plates, cat food and bowl
- [ ] *Suggestion:* the toddler's night light and favourite toy
- [ ] *Suggestion:* nappies, wipes and a change of clothes within reach

Van
- [ ] Box marked **OPEN FIRST**: router, power supply, cables
- [ ] Everything else packed

Backpack (with you)
- [ ] Passports
- [ ] New lease
- [ ] Removal company's invoice
- [ ] *Suggestion:* phone chargers

**Old flat, after the van leaves**
1. Cupboards above the fridge (the ones you always forget)
2. Last walk through every room, doors and windows closed
3. Meter readings, with photos showing the date
4. Keys to the letting agent before 17:00

| when | what |
|---|---|
| 8:00 | van arrives, load |
| after loading | old-flat list above |
| by 17:00 | keys handed in |

Print on one page at 90% scale if the table runs over.`;

const PLAIN_ASK = `What's a good way to remember irregular Portuguese verbs before my trip in May? I have about twenty minutes a day and I tend to forget conjugations within a week unless I use them. I already know the regular -ar, -er and -ir patterns and can read simple texts. The verbs that trip me up are ser and estar (and when to use which), ir, ter, fazer, poder and querer, especially in the preterite, where they change completely: fui, foi, fomos all look alike to me. I tried flashcards with the infinitive on one side and the whole table on the other, but that felt like memorising a phone book. Would short sentences about my own trip work better than tables? If so, could you give me a week's plan, with a small number of verbs a day and a way to check myself at the end of each day that doesn't take more than five minutes? I'd also like a short note on the ser/estar difference that I can stick on the fridge, with two or three examples from things I'd actually say while travelling: about the hotel, the weather and how I'm feeling after a long day of walking around Lisbon and Porto. I'm staying in Alfama for three nights and then taking the train north, if that helps the examples feel real.`;

const PLAIN_ANSWER = `Short sentences about your own trip work better than tables, because you remember the situation along with the form. Here is a week at twenty minutes a day:

| day | verbs | write three sentences about |
|---|---|---|
| 1 | ser, estar | the hotel in Alfama, the weather |
| 2 | ir | where you went yesterday (fui, foi, fomos) |
| 3 | ter, fazer | what you had and did on the train |
| 4 | poder, querer | what you could and wanted to see |
| 5 | review 1–4 | one paragraph about a whole day |
| 6 | ser vs ir preterite | fui = I was / I went: write both |
| 7 | free day | tell the trip from start to end |

Five-minute check: cover your sentences, say them aloud from the English, then uncover and mark.

Fridge note:

\`\`\`text
SER  = what something is (lasting):  O hotel é antigo.  Lisboa é bonita.
ESTAR = how something is now:        Está calor hoje.  Estou cansado depois de andar tanto.
\`\`\`

A rule of thumb that covers most travel sentences: if it would still be true next month, ser; if it is about today, estar.`;

function chain(prefix: string, at: number, turns: readonly (readonly [string, string])[]) {
  const mapping: Record<string, unknown> = {
    [`${prefix}-root`]: { id: `${prefix}-root`, parent: null, children: [`${prefix}-0`], message: null },
  };
  turns.forEach(([role, text], i) => {
    const id = `${prefix}-${i}`;
    mapping[id] = {
      id,
      parent: i ? `${prefix}-${i - 1}` : `${prefix}-root`,
      children: i < turns.length - 1 ? [`${prefix}-${i + 1}`] : [],
      message: {
        id,
        author: { role, name: null, metadata: {} },
        create_time: at + i * 60 + 0.123456,
        update_time: null,
        content: { content_type: 'text', parts: [text] },
        status: 'finished_successfully',
        end_turn: role === 'assistant' ? true : null,
        weight: 1,
        metadata: role === 'assistant' ? { model_slug: 'gpt-5', default_model_slug: 'gpt-5' } : {},
        recipient: 'all',
        channel: null,
      },
    };
  });
  return { mapping, current_node: `${prefix}-${turns.length - 1}` };
}

function chatGptConversation(
  id: string,
  title: string,
  at: number,
  turns: readonly (readonly [string, string])[],
  gizmo: { id: string; type: 'snorlax' | 'gpt' } | null,
) {
  return {
    title,
    create_time: at,
    update_time: at + turns.length * 60,
    ...chain(id, at, turns),
    plugin_ids: null,
    conversation_id: id,
    conversation_template_id: gizmo?.id ?? null,
    gizmo_id: gizmo?.id ?? null,
    gizmo_type: gizmo?.type ?? null,
    is_archived: false,
    is_starred: null,
    safe_urls: [],
    blocked_urls: [],
    default_model_slug: 'gpt-5',
    conversation_origin: null,
    voice: null,
    async_status: null,
    disabled_tool_ids: [],
    is_do_not_remember: false,
    memory_scope: gizmo?.type === 'snorlax' ? 'project_enabled' : 'global_enabled',
    sugar_item_id: null,
    id,
  };
}

/** Two chats in one ChatGPT project, one with a custom GPT (not a project), one plain chat. */
export const chatGptProjectConversations = [
  chatGptConversation(
    '68c1a2b3-0001-8012-9a1b-1c2d3e4f5a01',
    'Calibration after storms',
    P0,
    [
      ['user', THESIS_ASK],
      ['assistant', THESIS_ANSWER],
      ['user', THESIS_FOLLOW],
      ['assistant', THESIS_FOLLOW_ANSWER],
    ],
    { id: THESIS_PROJECT, type: 'snorlax' },
  ),
  chatGptConversation(
    '68c1a2b3-0002-8012-9a1b-1c2d3e4f5a02',
    'Grant data management section',
    P0 + 86_400,
    [
      ['user', GRANT_ASK],
      ['assistant', GRANT_ANSWER],
    ],
    { id: THESIS_PROJECT, type: 'snorlax' },
  ),
  chatGptConversation(
    '68c1a2b3-0003-8012-9a1b-1c2d3e4f5a03',
    'Moving day checklist',
    P0 + 2 * 86_400,
    [
      ['user', GPT_ASK],
      ['assistant', GPT_ANSWER],
    ],
    { id: CUSTOM_GPT, type: 'gpt' },
  ),
  chatGptConversation(
    '68c1a2b3-0004-8012-9a1b-1c2d3e4f5a04',
    'Irregular Portuguese verbs',
    P0 + 3 * 86_400,
    [
      ['user', PLAIN_ASK],
      ['assistant', PLAIN_ANSWER],
    ],
    null,
  ),
];

/** The ChatGPT export zip: conversations.json beside the files every export has. */
export function chatGptProjectZip(): Uint8Array {
  return zipSync({
    'conversations.json': strToU8(JSON.stringify(chatGptProjectConversations)),
    'user.json': strToU8(JSON.stringify({ id: 'user-Xk2', email: 'sam@example.org', chatgpt_plus_user: true })),
    'message_feedback.json': strToU8('[]'),
    'chat.html': strToU8('<html><body></body></html>'),
  });
}

export const CLAUDE_THESIS_UUID = '0b5e8a7c-2f1d-4c3b-9e8a-7d6c5b4a3f21';
export const CLAUDE_MOVE_UUID = '4d2c1b0a-9f8e-4d7c-8b6a-5f4e3d2c1b0a';
export const CLAUDE_STARTER_UUID = 'e1f2a3b4-c5d6-4e7f-8a9b-0c1d2e3f4a5b';

export const THESIS_PROMPT =
  'You are helping with a soil physics PhD thesis. Use SI units, British spelling, and say when a claim needs a citation. Prefer short paragraphs and tables over long lists.';

const creator = { uuid: '9a8b7c6d-5e4f-4a3b-2c1d-0e9f8a7b6c5d', full_name: 'Sam Rivera' };

export const claudeProjects = [
  {
    uuid: CLAUDE_STARTER_UUID,
    name: 'How to use Claude',
    description: 'An example project that also doubles as a how-to guide for using Claude.',
    is_private: false,
    is_starter_project: true,
    prompt_template: '',
    created_at: '2025-01-10T08:00:00.000000+00:00',
    updated_at: '2025-01-10T08:00:00.000000+00:00',
    creator,
    docs: [
      {
        uuid: 'd0c00001-0000-4000-8000-000000000001',
        filename: 'Claude prompting guide.md',
        content: '# Prompting guide\n\nBe clear and direct.',
        created_at: '2025-01-10T08:00:00.000000+00:00',
      },
    ],
  },
  {
    uuid: CLAUDE_THESIS_UUID,
    name: 'Thesis — soil moisture',
    description: 'Chapter drafts, calibration, methods.',
    is_private: true,
    is_starter_project: false,
    prompt_template: THESIS_PROMPT,
    created_at: '2025-03-01T10:12:44.118211+00:00',
    updated_at: '2025-03-20T16:40:02.551093+00:00',
    creator,
    docs: [
      {
        uuid: 'd0c00002-0000-4000-8000-000000000002',
        filename: 'chapter3-outline.md',
        content: `# Chapter 3\n\n${THESIS_ASK}`,
        created_at: '2025-03-01T10:15:00.000000+00:00',
      },
    ],
  },
  {
    uuid: CLAUDE_MOVE_UUID,
    name: 'House move',
    description: '',
    is_private: true,
    is_starter_project: false,
    prompt_template: '',
    created_at: '2025-04-02T19:01:10.000000+00:00',
    updated_at: '2025-04-02T19:01:10.000000+00:00',
    creator,
    docs: [],
  },
];

function claudeMessage(uuid: string, parent: string, sender: 'human' | 'assistant', text: string, at: string) {
  return {
    uuid,
    text,
    content: [{ start_timestamp: at, stop_timestamp: at, type: 'text', text, citations: [] }],
    sender,
    created_at: at,
    updated_at: at,
    attachments: [],
    files: [],
    parent_message_uuid: parent,
  };
}

const ROOT = '00000000-0000-4000-8000-000000000000';
const account = { uuid: creator.uuid };

/** As Claude exports them: no conversation says which project it was in. */
export const claudeProjectConversations = [
  {
    uuid: '7f3e2d1c-0b0a-4988-8776-655443322110',
    name: 'Storm drift in capacitive sensors',
    summary: '',
    created_at: '2025-03-04T09:00:00.000000+00:00',
    updated_at: '2025-03-04T09:05:00.000000+00:00',
    account,
    chat_messages: [
      claudeMessage('c1000001-0000-4000-8000-000000000001', ROOT, 'human', THESIS_ASK, '2025-03-04T09:00:00.000000+00:00'),
      claudeMessage(
        'c1000002-0000-4000-8000-000000000002',
        'c1000001-0000-4000-8000-000000000001',
        'assistant',
        THESIS_ANSWER,
        '2025-03-04T09:01:00.000000+00:00',
      ),
    ],
  },
  {
    uuid: '8a4f3e2d-1c0b-4a99-8887-766554433221',
    name: 'Portuguese verbs',
    summary: '',
    created_at: '2025-03-06T18:00:00.000000+00:00',
    updated_at: '2025-03-06T18:02:00.000000+00:00',
    account,
    chat_messages: [
      claudeMessage('c2000001-0000-4000-8000-000000000001', ROOT, 'human', PLAIN_ASK, '2025-03-06T18:00:00.000000+00:00'),
      claudeMessage(
        'c2000002-0000-4000-8000-000000000002',
        'c2000001-0000-4000-8000-000000000001',
        'assistant',
        PLAIN_ANSWER,
        '2025-03-06T18:01:00.000000+00:00',
      ),
    ],
  },
];

/** The Claude export zip with projects.json (the 2025 layout). */
export function claudeProjectZip(): Uint8Array {
  return zipSync({
    'conversations.json': strToU8(JSON.stringify(claudeProjectConversations)),
    'projects.json': strToU8(JSON.stringify(claudeProjects)),
    'users.json': strToU8(JSON.stringify([{ uuid: creator.uuid, full_name: creator.full_name, email_address: 'sam@example.org' }])),
  });
}

/**
 * The later layout (one projects/<uuid>.json per project, listed after conversations.json) and a
 * conversation that names its project with `project_uuid` — which real exports have not done so
 * far: this pins what the importer does if they start to.
 */
export function claudeProjectFilesZip(): Uint8Array {
  const linked = { ...claudeProjectConversations[0]!, project_uuid: CLAUDE_THESIS_UUID };
  return zipSync({
    'conversations.json': strToU8(JSON.stringify([linked, claudeProjectConversations[1]])),
    ...Object.fromEntries(claudeProjects.map((p) => [`projects/${p.uuid}.json`, strToU8(JSON.stringify(p))])),
  });
}
