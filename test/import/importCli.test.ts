import { afterAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { importHistoryFile, parseArgs } from '../../scripts/import-history';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { ambiguousTranscript, claudeConversations, nameLineTranscript } from './historyFixtures';
import { chatGptProjectZip } from './projectFixtures';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('npm run import', () => {
  it('builds a database the app can import, and a re-run adds nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'recollect-import-cli-'));
    dirs.push(dir);
    const input = join(dir, 'conversations.json');
    const out = join(dir, 'recollect.sqlite');
    await writeFile(input, JSON.stringify(claudeConversations));
    const args = parseArgs(['--format', 'claude', input, '--out', out, '--policy', 'off']);
    expect((await importHistoryFile(args)).summary).toMatch(/^1 conversation, 3 turns imported; 2 skipped/);
    expect((await importHistoryFile(args)).summary).toMatch(/^0 conversations, 0 turns imported; .*3 turns were already in memory\.$/);

    // The app's import path (validation, migration, replace) accepts the file.
    const app = await openNodeStore();
    try {
      const summary = await app.importDatabase(new Uint8Array(await readFile(out)));
      expect(summary).toMatchObject({ messageCount: 3, conversationCount: 1 });
      const [message] = await app.searchMessages('acetone');
      expect(message?.message.occurredAt).toBe(Date.parse('2024-02-01T09:00:00.000Z'));
      expect(await app.getMeta('consolidation.policy')).toBe('off');
    } finally {
      await app.db.close();
    }
  });

  it('writes into a copy: a run that fails leaves the previous --out file as it was, and no copy behind', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'recollect-import-cli-'));
    dirs.push(dir);
    const good = join(dir, 'conversations.json');
    const bad = join(dir, 'notes.json');
    const out = join(dir, 'recollect.sqlite');
    await writeFile(good, JSON.stringify(claudeConversations));
    await writeFile(bad, '[{"neither": "chatgpt nor claude"}]');
    await importHistoryFile(parseArgs([good, '--out', out]));
    const before = await readFile(out);
    await expect(importHistoryFile(parseArgs([bad, '--out', out]))).rejects.toThrow(/not a ChatGPT or Claude export/);
    expect(Buffer.compare(await readFile(out), before)).toBe(0);
    expect(existsSync(`${out}.importing`)).toBe(false);
  });

  it('shows how an uncertain transcript would be read and stores nothing until run again with --yes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'recollect-import-cli-'));
    dirs.push(dir);
    const input = join(dir, 'hydra.txt');
    const out = join(dir, 'recollect.sqlite');
    await writeFile(input, ambiguousTranscript);
    await expect(importHistoryFile(parseArgs([input, '--out', out]))).rejects.toThrow(
      /could not be read with certainty[\s\S]*you \(Mira\): Did you book the ferry[\s\S]*Nothing was stored[\s\S]*--yes/,
    );
    expect(existsSync(out)).toBe(false);
    expect(existsSync(`${out}.importing`)).toBe(false);
    expect((await importHistoryFile(parseArgs([input, '--out', out, '--yes']))).summary).toMatch(/^1 conversation, 4 turns imported/);
    // A transcript whose speakers are clear is stored without asking.
    const clear = join(dir, 'compose.md');
    await writeFile(clear, nameLineTranscript);
    expect((await importHistoryFile(parseArgs([clear, '--out', out]))).summary).toMatch(/^1 conversation, \d+ turns imported/);
  });

  it('refuses unknown formats and a missing file argument with a usage message', () => {
    expect(() => parseArgs(['--format', 'myspace', 'x.json'])).toThrow(/Unknown format/);
    expect(() => parseArgs(['--out', 'a.sqlite'])).toThrow(/Usage/);
  });
});

describe('npm run import -- --help', () => {
  it('prints the usage and exits 0', async () => {
    const { execFile } = await import('node:child_process');
    const { promisify } = await import('node:util');
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/import-history.ts', '--help'], {
      timeout: 60_000,
    });
    expect(stdout).toMatch(/^Usage: npm run import -- --format/);
    expect(stdout).toContain('--out <path>');
    expect(parseArgs(['-h'])).toEqual({ help: true });
  });
});

describe('npm run import with projects', () => {
  it("--project-only makes the export's projects project-only; the chats are in them in the file the app restores", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'recollect-import-cli-'));
    dirs.push(dir);
    const input = join(dir, 'chatgpt-export.zip');
    const out = join(dir, 'recollect.sqlite');
    await writeFile(input, chatGptProjectZip());
    const report = await importHistoryFile(parseArgs([input, '--out', out, '--policy', 'off', '--project-only']));
    expect(report.summary).toBe('4 conversations, 10 turns imported; 1 project created.');
    const app = await openNodeStore();
    try {
      await app.importDatabase(new Uint8Array(await readFile(out)));
      const [project] = await app.projects.listProjects();
      expect(project).toMatchObject({ name: 'ChatGPT project 685bb5', memory: 'project-only', conversationCount: 2 });
    } finally {
      await app.db.close();
    }
  });
});
