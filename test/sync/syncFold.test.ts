/**
 * The deterministic fold: the same event set in any order and with duplicates gives the same state
 * and hash; offline conflicts, deletions, re-imports and skewed clocks follow the stated rules.
 */
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../bench/seededRandom';
import { foldEvents, madeFromKey, SyncFold, syncStateHash } from '../../src/core/sync/SyncFold';
import { parseSyncEvent, SyncEventError, type SyncEvent } from '../../src/core/sync/syncEvents';
import { encodeHlc, SKEW_LIMIT_MS } from '../../src/core/sync/hybridClock';
import { T0, TestDevice, turnText } from './syncFixtures';

function shuffledWithDuplicates(events: readonly SyncEvent[], rand: () => number): SyncEvent[] {
  const out = [...events, ...events.filter(() => rand() < 0.3).map((e) => structuredClone(e))];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Two devices writing a realistic mixed history, partly offline, with conflicts on purpose. */
function mixedHistory(): SyncEvent[] {
  const laptop = new TestDevice('laptop', T0);
  const phone = new TestDevice('phone', T0 + 7_500); // its wall clock runs a little ahead of the laptop's
  laptop.emit({ kind: 'conversation.created', conversationId: 'c1', title: 'Greenhouse sensors', createdAt: T0 });
  const turns = [0, 1, 2, 3, 4, 5].map((n) =>
    laptop.emit({
      kind: 'turn.appended',
      conversationId: 'c1',
      turnId: `t${n}`,
      role: n % 2 ? 'assistant' : 'user',
      text: turnText(`turn-${n}`),
      occurredAt: T0 + n * 60_000,
    }),
  );
  phone.receive(laptop.log);
  laptop.emit({ kind: 'conversation.renamed', conversationId: 'c1', title: 'Humidity drift' });
  phone.emit({ kind: 'conversation.renamed', conversationId: 'c1', title: 'Sensor drift at night' }, 2_500);
  phone.emit({ kind: 'conversation.switched', conversationId: 'c1', switch: 'remember', on: false });
  laptop.emit({ kind: 'conversation.moved', conversationId: 'c1', projectId: 'p-garden' });
  laptop.emit({ kind: 'turn.edited', turnId: 't1', text: `${turnText('laptop-edit')}\n\nEdited on the laptop.` });
  phone.emit({ kind: 'turn.edited', turnId: 't1', text: `${turnText('phone-edit')}\n\nEdited on the phone.` });
  phone.emit({ kind: 'turn.deleted', turnId: 't3' });
  laptop.emit({ kind: 'turn.edited', turnId: 't3', text: 'a later edit of a deleted turn' }, 9_000);
  laptop.emit({ kind: 'memory.written', memoryId: 'm1', text: 'Prefers metric units and 24-hour times.' });
  phone.emit({ kind: 'memory.written', memoryId: 'm2', text: 'Grows tomatoes and basil in a small greenhouse.' });
  phone.emit({ kind: 'memory.edited', memoryId: 'm1', text: 'Prefers metric units.' });
  laptop.emit({ kind: 'memory.deleted', memoryId: 'm2' });
  laptop.emit({ kind: 'setting.set', name: 'answerLength', value: 'short' });
  phone.emit({ kind: 'setting.set', name: 'answerLength', value: 'long' }, 10_000);
  laptop.emit({ kind: 'setting.set', name: 'memoryEnabled', value: true });
  for (const [device, generator] of [
    [laptop, 'facts@3'],
    [phone, 'facts@3'],
    [phone, 'episodes@2'],
  ] as const) {
    device.emit({
      kind: 'derived.recorded',
      derivedKind: generator.startsWith('facts') ? 'fact' : 'episode',
      madeFrom: { turnIds: ['t2', 't0'], generator },
      payload: { text: `${device.deviceId} made this`, confidence: 0.8 },
    });
  }
  phone.emit({
    kind: 'derived.recorded',
    derivedKind: 'plan',
    madeFrom: { turnIds: ['t3', 't4'], generator: 'plans@1' },
    payload: { steps: ['check the vents', 'move the probe'] },
  });
  laptop.emit({ kind: 'derived.forgotten', item: 'fact', textHash: 'f00d1234abcd' });
  phone.emit({ kind: 'derived.forgotten', item: 'fact', textHash: 'f00d1234abcd' }); // deleted on both: once
  expect(turns).toHaveLength(6);
  return [...laptop.log, ...phone.log];
}

describe('SyncFold', () => {
  it('folds the same events in 200 random orders with duplicates to one state and one hash', () => {
    const events = mixedHistory();
    const reference = foldEvents(events);
    const hash = syncStateHash(reference);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    const rand = seededRandom(41);
    for (let round = 0; round < 200; round++) {
      const order = shuffledWithDuplicates(events, rand);
      expect(order.length).toBeGreaterThanOrEqual(events.length);
      // Incremental too: split the delivery into batches, as a tail would.
      const fold = new SyncFold();
      const cut = Math.floor(rand() * order.length);
      fold.add(order.slice(0, cut));
      fold.add(order.slice(cut));
      expect(fold.size).toBe(events.length);
      expect(syncStateHash(fold.state())).toBe(hash);
    }
    expect(reference.turns.map((t) => t.id)).toEqual(['t0', 't1', 't2', 't4', 't5']);
  });

  it('hash changes when the state does, so comparing hashes can fail', () => {
    const events = mixedHistory();
    const hash = syncStateHash(foldEvents(events));
    const phone = new TestDevice('phone', T0 + 3_600_000);
    phone.receive(events);
    const one = phone.emit({ kind: 'turn.edited', turnId: 't5', text: 'one more character.' });
    expect(syncStateHash(foldEvents([...events, one]))).not.toBe(hash);
  });

  it('conflicting offline edits and renames end as the later clock, whichever device folds', () => {
    const events = mixedHistory();
    const state = foldEvents(events);
    const t1 = state.turns.find((t) => t.id === 't1')!;
    // The phone's edit was stamped after the laptop's (its clock was read later), so it wins on both devices.
    expect(t1.text.endsWith('Edited on the phone.')).toBe(true);
    expect(t1.edited).toBe(true);
    expect(t1.text.length).toBeGreaterThan(1_000);
    expect(state.conversations).toEqual([
      { id: 'c1', title: 'Sensor drift at night', createdAt: T0, projectId: 'p-garden', useMemory: true, remember: false },
    ]);
    expect(state.settings).toEqual([
      { name: 'answerLength', value: 'long' },
      { name: 'memoryEnabled', value: true },
    ]);
    expect(state.memories).toEqual([{ id: 'm1', text: 'Prefers metric units.', edited: true, fromTurnId: null, reason: null }]);
    expect(state.forgotten).toEqual(['fact:f00d1234abcd']);
  });

  it('two versions made at one place while cut off: the one shown last wins with what followed it, in any arrival order', () => {
    const laptop = new TestDevice('laptop', T0);
    const phone = new TestDevice('phone', T0);
    const turn = (d: TestDevice, turnId: string, after: string, version?: true) =>
      d.emit({
        kind: 'turn.appended',
        conversationId: 'c1',
        turnId,
        role: turnId.startsWith('q') ? 'user' : 'assistant',
        text: turnText(turnId),
        occurredAt: T0,
        after,
        ...(version ? { version } : {}),
      });
    laptop.emit({ kind: 'conversation.created', conversationId: 'c1', title: 'Edits', createdAt: T0 });
    turn(laptop, 'q1', '');
    turn(laptop, 'a1', 'q1');
    phone.receive(laptop.log);
    // Both edit q1 while cut off; each hides the branch and writes its own question and answer.
    for (const [d, q, a, ms] of [
      [laptop, 'q-laptop', 'a-laptop', 1_000],
      [phone, 'q-phone', 'a-phone', 6_000], // later by the clock than the laptop's
    ] as const) {
      d.emit({ kind: 'turn.hidden', turnId: 'q1', hidden: true }, ms);
      d.emit({ kind: 'turn.hidden', turnId: 'a1', hidden: true });
      turn(d, q, '', true);
      turn(d, a, q);
    }
    turn(laptop, 'q-laptop-2', 'a-laptop'); // the laptop went on talking in its own version
    const all = [...laptop.log, ...phone.log];
    const rand = seededRandom(41);
    const hashes = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const fold = new SyncFold();
      fold.add(shuffledWithDuplicates(all, rand));
      const shown = fold
        .state()
        .turns.filter((t) => !t.hidden)
        .map((t) => t.id);
      expect(shown.sort()).toEqual(['a-phone', 'q-phone']);
      hashes.add(syncStateHash(fold.state()));
    }
    expect(hashes.size).toBe(1);

    // Showing the laptop's version again later brings it and what followed it back, everywhere.
    laptop.receive(phone.log);
    for (const id of ['q-laptop', 'a-laptop', 'q-laptop-2']) laptop.emit({ kind: 'turn.hidden', turnId: id, hidden: false }, 10);
    laptop.emit({ kind: 'turn.hidden', turnId: 'q-phone', hidden: true });
    laptop.emit({ kind: 'turn.hidden', turnId: 'a-phone', hidden: true });
    const fold = new SyncFold();
    fold.add(shuffledWithDuplicates([...laptop.log, ...phone.log], rand));
    expect(
      fold
        .state()
        .turns.filter((t) => !t.hidden)
        .map((t) => t.id)
        .sort(),
    ).toEqual(['a-laptop', 'q-laptop', 'q-laptop-2']);
    // Nothing is deleted: every version stays, hidden.
    expect(fold.state().turns).toHaveLength(7);
    expect(fold.state().deletedTurnIds).toEqual([]);
  });

  it('turns two devices wrote into one chat while cut off are ordered by their clocks', () => {
    const laptop = new TestDevice('laptop', T0);
    const phone = new TestDevice('phone', T0 + 500);
    const append = (d: TestDevice, turnId: string) =>
      d.emit(
        { kind: 'turn.appended', conversationId: 'c1', turnId, role: 'user', text: turnText(turnId), occurredAt: T0, after: '' },
        1_000,
      );
    append(laptop, 'l1');
    append(phone, 'p1');
    append(laptop, 'l2');
    append(phone, 'p2');
    const fold = new SyncFold();
    fold.add(shuffledWithDuplicates([...phone.log, ...laptop.log], seededRandom(7)));
    const order = ['l1', 'p1', 'l2', 'p2'];
    for (let i = 0; i + 1 < order.length; i++) {
      expect(fold.turnBefore(order[i]!, order[i + 1]!)).toBe(true);
      expect(fold.turnBefore(order[i + 1]!, order[i]!)).toBe(false);
    }
    // Concurrent appends are not versions: all four are shown.
    expect(fold.state().turns.every((t) => !t.hidden)).toBe(true);
  });

  it('breaks an exact clock tie by device id', () => {
    const at = (deviceId: string, text: string, id: string): SyncEvent =>
      parseSyncEvent({ kind: 'turn.edited', id, hlc: encodeHlc({ wallMs: T0, counter: 3, deviceId }), deviceId, turnId: 't', text });
    const base = parseSyncEvent({
      kind: 'turn.appended',
      id: '00000000-0000-4000-8000-000000000001',
      hlc: encodeHlc({ wallMs: T0 - 1, counter: 0, deviceId: 'alpha' }),
      deviceId: 'alpha',
      conversationId: 'c',
      turnId: 't',
      role: 'user',
      text: 'original',
      occurredAt: T0,
    });
    // Event ids chosen so that the id order is the opposite of the device order.
    const alpha = at('alpha', 'from alpha', 'ffffffff-0000-4000-8000-000000000000');
    const beta = at('beta', 'from beta', '00000000-0000-4000-8000-0000000000ff');
    expect(foldEvents([base, alpha, beta]).turns[0]!.text).toBe('from beta');
    expect(foldEvents([beta, base, alpha]).turns[0]!.text).toBe('from beta');
  });

  it('a deletion beats every edit, later clocks included, and drops the derived records made from the turn', () => {
    const state = foldEvents(mixedHistory());
    expect(state.turns.some((t) => t.id === 't3')).toBe(false);
    expect(state.deletedTurnIds).toEqual(['t3']);
    expect(state.derived.map((d) => d.derivedKind).sort()).toEqual(['episode', 'fact']);
    expect(state.derived.some((d) => d.madeFrom.turnIds.includes('t3'))).toBe(false);
    expect(state.memories.some((m) => m.id === 'm2')).toBe(false);
    // A re-append of the deleted turn (say, the history imported again) does not bring it back.
    const phone = new TestDevice('phone', T0 + 86_400_000);
    const again = phone.emit({
      kind: 'turn.appended',
      conversationId: 'c1',
      turnId: 't3',
      role: 'assistant',
      text: turnText('turn-3'),
      occurredAt: T0 + 3 * 60_000,
    });
    expect(foldEvents([...mixedHistory(), again]).turns.some((t) => t.id === 't3')).toBe(false);
  });

  it('a memory asked for in a message goes with that message, in either arrival order', () => {
    const laptop = new TestDevice('laptop', T0);
    const events = [
      laptop.emit({ kind: 'conversation.created', conversationId: 'c9', title: 'Diet', createdAt: T0 }),
      laptop.emit({
        kind: 'turn.appended',
        conversationId: 'c9',
        turnId: 'u9',
        role: 'user',
        text: 'Remember that I am vegetarian.',
        occurredAt: T0,
      }),
      laptop.emit({ kind: 'memory.written', memoryId: 'm9', text: 'Is vegetarian.', fromTurnId: 'u9' }),
      laptop.emit({ kind: 'memory.written', memoryId: 'm10', text: 'Lives in Lisbon.', reason: 'imported from ChatGPT (about)' }),
    ];
    const before = foldEvents(events);
    expect(before.memories.map((m) => [m.id, m.fromTurnId, m.reason])).toEqual([
      ['m10', null, 'imported from ChatGPT (about)'],
      ['m9', 'u9', null],
    ]);
    const deletion = laptop.emit({ kind: 'turn.deleted', turnId: 'u9' });
    for (const order of [
      [...events, deletion],
      [deletion, ...events],
    ]) {
      const fold = new SyncFold();
      fold.add(order);
      expect(fold.memory('m9')).toBe('deleted');
      expect(fold.state().memories.map((m) => m.id)).toEqual(['m10']);
    }
  });

  it('derived records: the first writer per madeFrom wins, whatever the turn order in madeFrom', () => {
    const state = foldEvents(mixedHistory());
    const fact = state.derived.find((d) => d.derivedKind === 'fact')!;
    expect(fact.payload).toEqual({ text: 'laptop made this', confidence: 0.8 });
    expect(fact.madeFrom).toEqual({ turnIds: ['t0', 't2'], generator: 'facts@3' });
    expect(fact.key).toBe(madeFromKey({ turnIds: ['t2', 't0', 't2'], generator: 'facts@3' }));
    expect(fact.key).not.toBe(madeFromKey({ turnIds: ['t0', 't2'], generator: 'facts@4' }));
  });

  it('derivedRecords lists the winners of a kind, those made from a deleted turn too; turnDeletion names the first deletion', () => {
    const events = mixedHistory();
    const fold = new SyncFold();
    fold.add(shuffledWithDuplicates(events, seededRandom(7)));
    // The plan was made from t3, deleted since: hidden from derivedFor, still listed for a device replaying in clock order.
    expect(fold.derivedFor({ turnIds: ['t4', 't3'], generator: 'plans@1' })).toBeNull();
    const [plan] = fold.derivedRecords('plan');
    expect(plan?.payload).toEqual({ steps: ['check the vents', 'move the probe'] });
    const facts = fold.derivedRecords('fact');
    expect(facts).toHaveLength(1);
    expect(facts[0]!.eventId).toBe(events.find((e) => e.kind === 'derived.recorded' && e.deviceId === 'laptop')!.id);
    const deletion = events.find((e) => e.kind === 'turn.deleted')!;
    expect(fold.turnDeletion('t3')).toEqual({ eventId: deletion.id, hlc: deletion.hlc });
    expect(fold.turnDeletion('t2')).toBeNull();
  });

  it('the same history imported on two devices stores each turn once, with the first import kept', () => {
    const history = Array.from({ length: 40 }, (_, n) => ({ turnId: `chatgpt-msg-${n}`, text: turnText(`import-${n}`) }));
    const importOn = (device: TestDevice) => {
      device.emit({ kind: 'conversation.created', conversationId: 'chatgpt-conv-1', title: 'Imported: greenhouse', createdAt: T0 });
      for (const [n, turn] of history.entries())
        device.emit(
          { kind: 'turn.appended', conversationId: 'chatgpt-conv-1', role: n % 2 ? 'assistant' : 'user', occurredAt: T0 + n, ...turn },
          10,
        );
    };
    const laptop = new TestDevice('laptop', T0 + 1_000);
    const phone = new TestDevice('phone', T0 + 5_000);
    importOn(laptop);
    importOn(phone);
    const state = foldEvents([...phone.log, ...laptop.log]);
    expect(laptop.log.length + phone.log.length).toBe(82);
    expect(state.turns).toHaveLength(40);
    expect(new Set(state.turns.map((t) => t.id)).size).toBe(40);
    expect(state.conversations).toHaveLength(1);
    expect(state.turns.find((t) => t.id === 'chatgpt-msg-7')!.text).toBe(turnText('import-7'));
  });

  it('a clock far ahead is reported, and every device still folds to the same order and hash', () => {
    const laptop = new TestDevice('laptop', T0);
    const phone = new TestDevice('phone', T0 + 15 * 60_000); // 15 minutes fast
    laptop.emit({ kind: 'conversation.created', conversationId: 'c', title: 'Skew', createdAt: T0 });
    laptop.emit({ kind: 'turn.appended', conversationId: 'c', turnId: 't', role: 'user', text: turnText('skew'), occurredAt: T0 });
    phone.receive(laptop.log);
    phone.emit({ kind: 'turn.edited', turnId: 't', text: 'phone edit (clock fast)' });
    const skews = laptop.receive(phone.log);
    expect(skews).toHaveLength(1);
    expect(skews[0]!.remoteDeviceId).toBe('phone');
    expect(skews[0]!.aheadMs).toBeGreaterThan(SKEW_LIMIT_MS);
    // The laptop edits after seeing the phone's edit: its clock was pulled forward, so its edit is later.
    laptop.emit({ kind: 'turn.edited', turnId: 't', text: 'laptop edit after sync' });
    const all = [...laptop.log, ...phone.log];
    const rand = seededRandom(7);
    const hashes = new Set(Array.from({ length: 50 }, () => syncStateHash(foldEvents(shuffledWithDuplicates(all, rand)))));
    expect(hashes.size).toBe(1);
    expect(foldEvents(all).turns[0]!.text).toBe('laptop edit after sync');
  });

  it('refuses a malformed event with the event id and the bad field named', () => {
    const good = new TestDevice('laptop', T0).emit({ kind: 'memory.written', memoryId: 'm', text: 'ok' });
    expect(() => parseSyncEvent({ ...good, kind: 'memory.exploded' })).toThrow(SyncEventError);
    expect(() => parseSyncEvent({ ...good, text: 42 })).toThrow(new RegExp(`${good.id}.*text`));
    expect(() => parseSyncEvent({ ...good, deviceId: 'phone' })).toThrow(/hlc: the clock timestamp was issued by another device/);
    expect(() => parseSyncEvent({ ...good, extra: 1 })).toThrow(/not one this version can read/);
  });
});
