/**
 * `npm run import` killed while it writes its --out file: the previous file must survive whole
 * (it is the person's memory so far). The CLI runs as a real child process with a preload that
 * slows large writes (test/support/slowDisk.mjs), and is killed with SIGKILL as soon as it starts
 * writing — the moment an in-place write has already truncated the old file.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { importHistoryFile, parseArgs } from '../../scripts/import-history';
import { openNodeStore } from '../../src/storage/openNodeDatabase';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** A Claude export: `count` conversations of 6 turns about 1,100 characters long, as real turns are. */
function claudeExport(prefix: string, count: number): string {
  const body = 'We talked through the week: the garden beds, the bread starter, the train times to Porto and what to pack. '.repeat(10);
  return JSON.stringify(
    Array.from({ length: count }, (_, c) => ({
      uuid: `${prefix}-${c}`,
      name: `${prefix} chat ${c}`,
      created_at: new Date(Date.UTC(2024, 0, 1) + c * 3_600_000).toISOString(),
      chat_messages: Array.from({ length: 6 }, (_, i) => ({
        uuid: `${prefix}-${c}-${i}`,
        sender: i % 2 ? 'assistant' : 'human',
        text: `${prefix} ${c}.${i}: ${body}`,
        created_at: new Date(Date.UTC(2024, 0, 1) + c * 3_600_000 + i * 60_000).toISOString(),
      })),
    })),
  );
}

/** Runs the CLI as `npm run import` does (tsx), slowed on large writes, and SIGKILLs it mid-import or when a write starts. */
function runAndKillWhileWriting(args: readonly string[]): Promise<{ killed: boolean; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--import', resolve('test/support/slowDisk.mjs'), resolve('scripts/import-history.ts'), ...args],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    let killed = false;
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      // Killed while it imports into its working copy (progress shows), or as it writes a file.
      if (!killed && (stderr.includes('SLOW-DISK: writing') || /\d+% read/.test(stderr))) {
        killed = true;
        child.kill('SIGKILL');
      }
    });
    child.on('error', fail);
    child.on('exit', () => done({ killed, stderr }));
  });
}

describe('npm run import killed mid-write', () => {
  it('leaves the existing --out file intact, and the next run completes it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'recollect-import-kill-'));
    dirs.push(dir);
    const first = join(dir, 'first.json');
    const second = join(dir, 'second.json');
    const out = join(dir, 'memory.sqlite');
    await writeFile(first, claudeExport('a', 150));
    await writeFile(second, claudeExport('b', 20));
    await importHistoryFile(parseArgs(['--format', 'claude', first, '--out', out, '--policy', 'off']));
    const before = await readFile(out);
    expect(before.byteLength).toBeGreaterThan(1_000_000);

    const run = await runAndKillWhileWriting(['--format', 'claude', second, '--out', out]);
    expect(run.killed, run.stderr).toBe(true);
    const after = await readFile(out);
    expect(after.byteLength).toBe(before.byteLength);
    expect(after.equals(before)).toBe(true);

    // The next run completes the import, and the file opens in the app with both exports.
    const report = await importHistoryFile(parseArgs(['--format', 'claude', second, '--out', out]));
    expect(report).toMatchObject({ conversations: 20, turns: 120 });
    const app = await openNodeStore();
    try {
      expect(await app.importDatabase(new Uint8Array(await readFile(out)))).toMatchObject({ conversationCount: 170, messageCount: 1020 });
    } finally {
      await app.db.close();
    }
    // The killed run's unfinished copy is the only thing left besides the inputs and the memory.
    const stray = (await readdir(dir)).filter((f) => !['first.json', 'second.json', 'memory.sqlite'].includes(f));
    expect(stray.every((f) => f.endsWith('.partial') || f.includes('.importing'))).toBe(true);
  }, 120_000);
});
