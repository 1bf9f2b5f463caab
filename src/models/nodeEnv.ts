/**
 * Node-only transformers.js setup (unit tests, benchmarks): models load from
 * <repo>/public/models — the folder the build script writes and the app serves — with remote
 * downloads off and onnxruntime-node's CPU backend. Never imported by the browser worker.
 */
import { existsSync } from 'node:fs';
import { readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { env } from '@huggingface/transformers';
import { modelFiles } from './catalog';
import type { ModelPlatform } from './transformersEnv';
import type { StaticFileReader } from './StaticEmbedder';

export const REPO_MODELS_DIR = fileURLToPath(new URL('../../public/models/', import.meta.url));

export interface NodeEnvOptions {
  /** Folder holding `<model id>/config.json` etc.; defaults to <repo>/public/models. */
  readonly localModelPath?: string;
}

export function configureNodeEnv(options: NodeEnvOptions = {}): ModelPlatform {
  const root = options.localModelPath ?? REPO_MODELS_DIR;
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = root.endsWith('/') ? root : `${root}/`;
  return {
    name: 'node',
    devices: () => ['cpu'],
    staticFiles: (entry) => nodeStaticReader(entry.id, root),
    async availability(entry) {
      const files = modelFiles(entry);
      const local = files.every((f) => existsSync(join(root, entry.id, f)));
      // transformers.js' Node FS cache stores downloads as <cacheDir>/<model id>/<file>.
      const cacheDir = env.cacheDir;
      const cached = !!cacheDir && files.every((f) => existsSync(join(cacheDir, entry.id, f)));
      return { local, cached };
    },
    // The Node FS cache's files of a downloaded model (never the local model folder's).
    async forget(entry) {
      const cacheDir = env.cacheDir;
      if (entry.bundled || !cacheDir) return 0;
      let freed = 0;
      for (const f of modelFiles(entry)) {
        const path = join(cacheDir, entry.id, f);
        const size = await stat(path).then(
          (s) => s.size,
          () => null,
        );
        if (size === null) continue;
        await rm(path);
        freed += size;
      }
      return freed;
    },
  };
}

/** Reads a bundled model's lookup files (src/models/StaticEmbedder.ts) from the local model folder. */
export function nodeStaticReader(modelId: string, root: string = REPO_MODELS_DIR): StaticFileReader {
  return async (file) => {
    const bytes = await readFile(join(root, modelId, 'static', file));
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  };
}
