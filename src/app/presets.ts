/** Endpoint presets for the settings form, with what each local server needs for browser (CORS) access. */
export interface EndpointPreset {
  readonly id: string;
  readonly label: string;
  readonly baseUrl: string;
  readonly needsKey: boolean;
  readonly exampleModel: string;
  readonly note: string;
}

export const ENDPOINT_PRESETS: readonly EndpointPreset[] = [
  {
    id: 'openai',
    label: 'OpenAI',
    baseUrl: 'https://api.openai.com/v1',
    needsKey: true,
    exampleModel: 'gpt-4.1-mini',
    note: 'Needs an API key from your OpenAI account. Calls go straight from this browser to OpenAI.',
  },
  {
    id: 'openrouter',
    label: 'OpenRouter',
    baseUrl: 'https://openrouter.ai/api/v1',
    needsKey: true,
    exampleModel: 'openai/gpt-4.1-mini',
    note: 'Needs an OpenRouter API key. Model names include the provider, e.g. "meta-llama/llama-3.1-8b-instruct".',
  },
  {
    id: 'ollama',
    label: 'Ollama (local)',
    baseUrl: 'http://localhost:11434/v1',
    needsKey: false,
    exampleModel: 'llama3.1:8b',
    note: 'Allow this page\'s origin: start Ollama with OLLAMA_ORIGINS set to it, e.g. OLLAMA_ORIGINS="http://127.0.0.1:4173" ollama serve.',
  },
  {
    id: 'lmstudio',
    label: 'LM Studio (local)',
    baseUrl: 'http://localhost:1234/v1',
    needsKey: false,
    exampleModel: 'qwen2.5-7b-instruct',
    note: 'Start the local server with CORS enabled: the "Enable CORS" switch in the Developer tab, or lms server start --cors.',
  },
  {
    id: 'llamacpp',
    label: 'llama.cpp server (local)',
    baseUrl: 'http://localhost:8080/v1',
    needsKey: false,
    exampleModel: 'default',
    note: 'llama-server answers browser (CORS) requests out of the box; add --api-key to require a key, and enter the same key here.',
  },
  {
    id: 'vllm',
    label: 'vLLM (local)',
    baseUrl: 'http://localhost:8000/v1',
    needsKey: false,
    exampleModel: 'Qwen/Qwen2.5-7B-Instruct',
    note: "Allow this page's origin: vllm serve … --allowed-origins '[\"http://127.0.0.1:4173\"]'.",
  },
];

export function presetFor(baseUrl: string): EndpointPreset | undefined {
  const norm = baseUrl.replace(/\/+$/, '');
  return ENDPOINT_PRESETS.find((p) => p.baseUrl === norm);
}
