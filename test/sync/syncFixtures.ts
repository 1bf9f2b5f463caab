/**
 * Shared inputs for the sync tests: a fixed valid recovery phrase, a real-shaped turn (≈1,100
 * characters of prose, a fenced code block and a table), and simulated devices whose wall clocks
 * the test moves by hand.
 */
import { HybridClock } from '../../src/core/sync/hybridClock';
import { stampEvent, type SyncEvent, type SyncEventBody } from '../../src/core/sync/syncEvents';

/** A valid 12-word phrase (its checksum word fits), fixed so the tests repeat. */
export const PHRASE = 'adapt patrol eternal modify make run common noble salute lecture detail aim';

/** A real-shaped turn: ≈1,100 characters with prose, a fenced code block and a table. */
export function turnText(marker: string): string {
  return [
    `I moved the greenhouse sensors to the new board last weekend (${marker}), and the humidity readings now drift`,
    'by about four percent every night. Here is the loop that samples them; the delay was copied from the old sketch:',
    '',
    '```python',
    'import time',
    'from sensors import read_humidity, read_temperature',
    '',
    'def sample(n: int = 12) -> list[tuple[float, float]]:',
    '    out = []',
    '    for _ in range(n):',
    '        out.append((read_humidity(), read_temperature()))',
    '        time.sleep(2.5)',
    '    return out',
    '```',
    '',
    '| night | min RH % | max RH % | drift |',
    '|-------|----------|----------|-------|',
    '| Mon   | 61.2     | 65.0     | 3.8   |',
    '| Tue   | 60.9     | 65.3     | 4.4   |',
    '| Wed   | 61.4     | 65.6     | 4.2   |',
    '',
    'Is the drift more likely the sensor warming up inside the enclosure, or condensation on the probe? The enclosure',
    'has two vents but no fan, and the board sits right under the grow light, which switches off at 22:00 each night.',
    'Last spring the same probe read within one percent of the handheld meter, so I doubt it is simply ageing.',
  ].join('\n');
}

/** A device with its own hand-moved wall clock; `emit` stamps events as the engine would. */
export class TestDevice {
  wallMs: number;
  readonly clock: HybridClock;
  readonly log: SyncEvent[] = [];

  constructor(
    readonly deviceId: string,
    startMs: number,
  ) {
    this.wallMs = startMs;
    this.clock = new HybridClock(deviceId, { now: () => this.wallMs });
  }

  emit(body: SyncEventBody, advanceMs = 1_000): SyncEvent {
    this.wallMs += advanceMs;
    const event = stampEvent(body, this.clock);
    this.log.push(event);
    return event;
  }

  /** Receives another device's events (as sync would), returning any skew reports. */
  receive(events: readonly SyncEvent[]) {
    return events.map((e) => this.clock.receive(e.hlc)).filter((s) => s !== null);
  }
}

export const T0 = Date.UTC(2026, 10, 28, 9, 0, 0);
