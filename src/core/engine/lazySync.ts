/**
 * Sync loaded only when it is used. Sync is off by default, and the engine's start must be no
 * slower for it (bench/results/cold-open-sync-off-s19.md): SyncService, the fold, the phrase's word
 * list, the key derivation and the envelope are ≈ 35 kB of the engine worker's script. This facade has the
 * same surface; while sync is off it answers from constants and loads nothing. It loads the service
 * (a chunk of its own, through the dynamic import) when this device kept a phrase at start, or
 * when the person turns sync on, joins or leaves.
 *
 * Invariant: while nothing is loaded sync is off, so every note is a no-op, as SyncService's own
 * notes are while off.
 */
import type { EpisodeSynthesis } from '../synthesis/knowledge';
import type { DerivedTheme } from '../synthesis/derivedEpisode';
import type { ProfileSideUpdate } from '../synthesis/profileUpdate';
import { SYNC_OFF, type SyncStatus } from '../protocol/sync';
import type { SyncService, SyncServiceDeps } from './SyncService';
import type { ProfileHeld } from './syncProfile';

/** The service's module, as the dynamic import gives it. */
export type SyncServiceModule = { readonly SyncService: new (deps: SyncServiceDeps) => SyncService };

/** What the engine uses of sync: SyncService's public surface. */
export type SyncControl = Pick<
  SyncService,
  | 'on'
  | 'start'
  | 'stop'
  | 'enable'
  | 'join'
  | 'leave'
  | 'removeFromRelay'
  | 'status'
  | 'stateHash'
  | 'syncNow'
  | 'noteConversation'
  | 'noteTurns'
  | 'noteTurnsDeleted'
  | 'noteTurnsHidden'
  | 'noteVersionsGone'
  | 'noteMemory'
  | 'noteSettings'
  | 'noteProject'
  | 'noteSweep'
  | 'noteEpisode'
  | 'derivedEpisode'
  | 'noteTheme'
  | 'derivedTheme'
  | 'derivedProfile'
  | 'recordProfile'
  | 'noteEndpoint'
  | 'shareEndpoint'
>;

export class LazySync implements SyncControl {
  readonly #deps: SyncServiceDeps;
  readonly #load: () => Promise<SyncServiceModule>;
  #service: SyncService | null = null;
  #loading: Promise<SyncService> | null = null;
  #stopped = false;

  constructor(deps: SyncServiceDeps, load: () => Promise<SyncServiceModule> = () => import('./SyncService')) {
    this.#deps = deps;
    this.#load = load;
  }

  /** Whether the service's code has been loaded (tests check that sync off loads nothing). */
  get loaded(): boolean {
    return this.#service !== null;
  }

  get on(): boolean {
    return this.#service?.on ?? false;
  }

  #get(): Promise<SyncService> {
    this.#loading ??= this.#load().then(({ SyncService: Service }) => (this.#service = new Service(this.#deps)));
    return this.#loading;
  }

  /** At engine start: one read of the settings store; the service loads only if a phrase was kept. */
  async start(): Promise<void> {
    this.#stopped = false;
    if (this.#service) return this.#service.start();
    try {
      if (!(await this.#deps.secrets.loadSyncPhrase())) return;
    } catch (error) {
      this.#deps.onStatus({ ...SYNC_OFF, message: `Sync could not resume: ${error instanceof Error ? error.message : String(error)}` });
      return;
    }
    const service = await this.#get();
    if (!this.#stopped) await service.start();
  }

  stop(): void {
    this.#stopped = true;
    this.#service?.stop();
  }

  async enable(relayUrl: string): Promise<{ phrase: string; status: SyncStatus }> {
    return (await this.#get()).enable(relayUrl);
  }
  async join(phrase: string, relayUrl: string): Promise<SyncStatus> {
    return (await this.#get()).join(phrase, relayUrl);
  }
  async removeFromRelay(): Promise<{ phrase: string; status: SyncStatus }> {
    return (await this.#get()).removeFromRelay();
  }
  async leave(): Promise<SyncStatus> {
    return (await this.#get()).leave();
  }
  status(): SyncStatus {
    return this.#service?.status() ?? SYNC_OFF;
  }
  stateHash(): string | null {
    return this.#service?.stateHash() ?? null;
  }
  async syncNow(): Promise<SyncStatus> {
    return this.#service ? this.#service.syncNow() : SYNC_OFF;
  }

  noteConversation(id: string): void {
    this.#service?.noteConversation(id);
  }
  noteTurns(turnIds: readonly string[]): void {
    this.#service?.noteTurns(turnIds);
  }
  noteTurnsDeleted(turnIds: readonly string[]): void {
    this.#service?.noteTurnsDeleted(turnIds);
  }
  noteTurnsHidden(turnIds: readonly string[]): void {
    this.#service?.noteTurnsHidden(turnIds);
  }
  noteVersionsGone(conversationId: string): void {
    this.#service?.noteVersionsGone(conversationId);
  }
  noteMemory(id: string): void {
    this.#service?.noteMemory(id);
  }
  noteSettings(): void {
    this.#service?.noteSettings();
  }
  noteProject(id: string): void {
    this.#service?.noteProject(id);
  }
  noteEndpoint(): void {
    this.#service?.noteEndpoint();
  }
  async shareEndpoint(on: boolean): Promise<SyncStatus> {
    return (await this.#get()).shareEndpoint(on);
  }
  noteSweep(): void {
    this.#service?.noteSweep();
  }
  noteEpisode(memcellId: string): void {
    this.#service?.noteEpisode(memcellId);
  }
  async derivedEpisode(memcellId: string): Promise<EpisodeSynthesis | null> {
    return this.#service ? this.#service.derivedEpisode(memcellId) : null;
  }
  noteTheme(sceneId: string): void {
    this.#service?.noteTheme(sceneId);
  }
  async derivedTheme(sceneId: string): Promise<DerivedTheme | null> {
    return this.#service ? this.#service.derivedTheme(sceneId) : null;
  }
  async derivedProfile(themes: () => Promise<readonly string[]>): Promise<ProfileHeld> {
    return this.#service ? this.#service.derivedProfile(themes) : 'due';
  }
  async recordProfile(sides: readonly ProfileSideUpdate[]): Promise<void> {
    await this.#service?.recordProfile(sides);
  }
}
