import { describe, expect, it } from 'vitest';
import { historyEngines } from '../support/historyEngine';
import { readHistory } from '../../src/import/readHistory';
import { chatgptProjectOf, parseChatGptConversation } from '../../src/import/chatgpt';
import { claudeProjectRef, parseClaudeProject } from '../../src/import/claude';
import type { HistoryItem } from '../../src/core/base/historyImport';
import {
  CLAUDE_THESIS_UUID,
  THESIS_PROJECT,
  THESIS_PROMPT,
  chatGptProjectConversations,
  chatGptProjectZip,
  claudeProjectConversations,
  claudeProjectFilesZip,
  claudeProjectZip,
  claudeProjects,
} from './projectFixtures';

const { engine } = historyEngines();
const file = (bytes: Uint8Array, name: string) => new File([bytes as Uint8Array<ArrayBuffer>], name);

async function items(bytes: Uint8Array, name: string): Promise<HistoryItem[]> {
  const out: HistoryItem[] = [];
  for await (const item of readHistory(file(bytes, name), { format: 'auto', now: Date.now() })) out.push(item);
  return out;
}

describe('projects in ChatGPT exports', () => {
  it('a g-p- gizmo id is a project, named from its id; a custom GPT (g- without p-) and a plain chat are in none', () => {
    const [thesis, grant, gpt, plain] = chatGptProjectConversations.map(parseChatGptConversation);
    expect(thesis!.project).toEqual({ sourceId: `chatgpt:${THESIS_PROJECT}`, name: 'ChatGPT project 685bb5' });
    expect(grant!.project).toEqual(thesis!.project);
    expect(gpt!.project).toBeUndefined();
    expect(plain!.project).toBeUndefined();
    // Real-length turns with their tables and code blocks come through whole.
    expect(thesis!.turns[0]!.content.length).toBeGreaterThan(900);
    expect(thesis!.turns[1]!.content).toContain('```python');
    // The template id alone is enough (an export where gizmo_id is null).
    expect(chatgptProjectOf({ gizmo_id: null, conversation_template_id: 'g-p-abcdef0123' })?.sourceId).toBe('chatgpt:g-p-abcdef0123');
    expect(chatgptProjectOf({ gizmo_id: 'g-2fkFE8rbu', gizmo_type: 'gpt' })).toBeUndefined();
  });
});

describe('projects in Claude exports', () => {
  it('projects.json gives names and instructions; the example project is left out; chats carry no project', async () => {
    const read = await items(claudeProjectZip(), 'data-2025-04-10.zip');
    const projects = read.filter((i) => i.kind === 'project').map((i) => i.project);
    expect(projects).toEqual([
      { sourceId: `claude:project:${CLAUDE_THESIS_UUID}`, name: 'Thesis — soil moisture', instructions: THESIS_PROMPT },
      { sourceId: 'claude:project:4d2c1b0a-9f8e-4d7c-8b6a-5f4e3d2c1b0a', name: 'House move' },
    ]);
    expect(read).toContainEqual({ kind: 'skipped', reason: "Claude's example project (not imported)" });
    const conversations = read.flatMap((i) => (i.kind === 'conversation' ? [i.conversation] : []));
    expect(conversations).toHaveLength(2);
    expect(conversations.every((c) => c.project === undefined)).toBe(true);
  });

  it('reads one projects/<uuid>.json per project, and a conversation that names its project with project_uuid', async () => {
    const read = await items(claudeProjectFilesZip(), 'data-2026-05-01.zip');
    expect(read.filter((i) => i.kind === 'project')).toHaveLength(2);
    const linked = read.flatMap((i) => (i.kind === 'conversation' ? [i.conversation] : [])).find((c) => c.project);
    expect(linked?.project?.sourceId).toBe(`claude:project:${CLAUDE_THESIS_UUID}`);
    expect(claudeProjectRef({ project: { uuid: 'u1', name: 'Named' } })).toEqual({ sourceId: 'claude:project:u1', name: 'Named' });
    expect(() => parseClaudeProject({ name: 'no id' })).toThrow();
    expect(parseClaudeProject(claudeProjects[1]).instructions).toBe(THESIS_PROMPT);
  });

  it('a zip with projects.json but no conversations.json is refused with the usual message', async () => {
    const { zipSync, strToU8 } = await import('fflate');
    await expect(items(zipSync({ 'projects.json': strToU8(JSON.stringify(claudeProjects)) }), 'x.zip')).rejects.toThrow(
      /no conversations\.json/,
    );
  });
});

describe('imported chats land in their projects', () => {
  it('scan lists the project with its chat count; import creates it once (shared), puts its chats in it, and a re-import reuses it', async () => {
    const e = await engine();
    const scan = await e.data.scanHistory(file(chatGptProjectZip(), 'chatgpt.zip'), { format: 'auto', importId: 's1' });
    expect(scan.projects).toEqual([
      { sourceId: `chatgpt:${THESIS_PROJECT}`, name: 'ChatGPT project 685bb5', chats: 2, hasInstructions: false },
    ]);
    expect(await e.projects.list()).toEqual([]); // a scan writes nothing

    const report = await e.data.importHistory(file(chatGptProjectZip(), 'chatgpt.zip'), { format: 'auto', importId: 'i1' });
    expect(report).toMatchObject({ conversations: 4, projectsCreated: 1 });
    expect(report.summary).toContain('1 project created');
    const [project] = await e.projects.list();
    expect(project).toMatchObject({ name: 'ChatGPT project 685bb5', memory: 'shared', conversationCount: 2 });
    const byId = new Map((await e.conversations.list()).map((c) => [c.id, c.projectId]));
    expect(byId.get('chatgpt:68c1a2b3-0001-8012-9a1b-1c2d3e4f5a01')).toBe(project!.id);
    expect(byId.get('chatgpt:68c1a2b3-0002-8012-9a1b-1c2d3e4f5a02')).toBe(project!.id);
    expect(byId.get('chatgpt:68c1a2b3-0003-8012-9a1b-1c2d3e4f5a03')).toBeNull();
    expect(byId.get('chatgpt:68c1a2b3-0004-8012-9a1b-1c2d3e4f5a04')).toBeNull();

    // The person renames the project and moves one chat out; the same export again changes neither.
    await e.projects.edit(project!.id, { name: 'Thesis' });
    await e.projects.move('chatgpt:68c1a2b3-0002-8012-9a1b-1c2d3e4f5a02', null);
    const rescan = await e.data.scanHistory(file(chatGptProjectZip(), 'chatgpt.zip'), { format: 'auto', importId: 's2' });
    expect(rescan.projects[0]).toMatchObject({ existingName: 'Thesis', chats: 2 });
    const again = await e.data.importHistory(file(chatGptProjectZip(), 'chatgpt.zip'), { format: 'auto', importId: 'i2' });
    expect(again).toMatchObject({ conversations: 0, turns: 0, projectsCreated: 0 });
    expect(await e.projects.list()).toEqual([expect.objectContaining({ id: project!.id, name: 'Thesis', conversationCount: 1 })]);
  });

  it('Claude projects come with their instructions and the memory mode the person chose; chats stay in no project', async () => {
    const e = await engine();
    const scan = await e.data.scanHistory(file(claudeProjectZip(), 'claude.zip'), { format: 'auto', importId: 's1' });
    expect(scan.projects.map((p) => [p.name, p.chats, p.hasInstructions])).toEqual([
      ['Thesis — soil moisture', 0, true],
      ['House move', 0, false],
    ]);
    const report = await e.data.importHistory(file(claudeProjectZip(), 'claude.zip'), {
      format: 'auto',
      importId: 'i1',
      projectMemory: 'project-only',
    });
    expect(report).toMatchObject({ conversations: 2, projectsCreated: 2 });
    const projects = await e.projects.list();
    expect(projects.map((p) => [p.name, p.memory, p.conversationCount])).toEqual([
      ['House move', 'project-only', 0],
      ['Thesis — soil moisture', 'project-only', 0],
    ]);
    expect(projects.find((p) => p.name.startsWith('Thesis'))!.instructions).toBe(THESIS_PROMPT);
    expect((await e.conversations.list()).every((c) => c.projectId === null)).toBe(true);
    expect((await e.data.importHistory(file(claudeProjectZip(), 'claude.zip'), { format: 'auto', importId: 'i2' })).projectsCreated).toBe(
      0,
    );
    expect(await e.projects.list()).toHaveLength(2);
  });

  it('a chat that names its project before the project list arrives lands in it, and the list then names the project', async () => {
    const e = await engine();
    await e.data.importHistory(file(claudeProjectFilesZip(), 'claude.zip'), { format: 'auto', importId: 'i1' });
    const thesis = (await e.projects.list()).find((p) => p.conversationCount === 1);
    expect(thesis).toMatchObject({ name: 'Thesis — soil moisture', instructions: THESIS_PROMPT, memory: 'shared' });
    expect((await e.conversations.list()).find((c) => c.id === `claude:${claudeProjectConversations[0]!.uuid}`)?.projectId).toBe(
      thesis!.id,
    );
  });
});
