import { describe, expect, it } from 'vitest';
import { redactCommandLine } from '../../src/target/redact.js';

// [input, expected]: every secret becomes <redacted>, everything else stays byte for byte.
const CASES: Array<[string, string]> = [
  ['vllm serve m --api-key sk-abc123 --port 8000', 'vllm serve m --api-key <redacted> --port 8000'],
  ['vllm serve m --api-key=sk-abc123 --port 8000', 'vllm serve m --api-key=<redacted> --port 8000'],
  ['vllm serve m --api-key "two words" --port 8000', 'vllm serve m --api-key <redacted> --port 8000'],
  ["vllm serve m --api-key='quoted' --port 8000", 'vllm serve m --api-key=<redacted> --port 8000'],
  ['vllm serve m --api-key <redacted> --port 8000', 'vllm serve m --api-key <redacted> --port 8000'],
  ['huggingface-cli login --token hf_abcdefghijklmnopqrstuvwxyz', 'huggingface-cli login --token <redacted>'],
  [
    'text-generation-launcher --hf-token abc --model-id m',
    'text-generation-launcher --hf-token <redacted> --model-id m',
  ],
  ['x --hf_token abc', 'x --hf_token <redacted>'],
  ['x --password hunter2 --user bob', 'x --password <redacted> --user bob'],
  ['x --admin-api-key adm1n', 'x --admin-api-key <redacted>'],
  ['x --client-secret s3cr3t', 'x --client-secret <redacted>'],
  [
    'llama-server -m model.gguf --api-key k1,k2 -c 8192',
    'llama-server -m model.gguf --api-key <redacted> -c 8192',
  ],
  ['HF_TOKEN=hf_secret vllm serve m', 'HF_TOKEN=<redacted> vllm serve m'],
  [
    'env OPENAI_API_KEY=abc VLLM_USE_V2_MODEL_RUNNER=1 vllm serve m',
    'env OPENAI_API_KEY=<redacted> VLLM_USE_V2_MODEL_RUNNER=1 vllm serve m',
  ],
  [
    'AWS_SECRET_ACCESS_KEY="a b" MY_SECRET=x DB_PASSWORD=y run',
    'AWS_SECRET_ACCESS_KEY=<redacted> MY_SECRET=<redacted> DB_PASSWORD=<redacted> run',
  ],
  ["docker run -e 'HF_TOKEN=abc' img", "docker run -e 'HF_TOKEN=<redacted>' img"],
  [
    'docker run -e HUGGING_FACE_HUB_TOKEN=abc --env VLLM_API_KEY=def img',
    'docker run -e HUGGING_FACE_HUB_TOKEN=<redacted> --env VLLM_API_KEY=<redacted> img',
  ],
  [
    'curl -H "Authorization: Bearer abc.def" http://h/v1',
    'curl -H "Authorization: Bearer <redacted>" http://h/v1',
  ],
  ["curl -H 'x-api-key: abc' http://h", "curl -H 'x-api-key: <redacted>' http://h"],
  ['x --header Authorization: Bearer tok123', 'x --header Authorization: Bearer <redacted>'],
  [
    'vllm serve m --hf-overrides \'{"hf_token": "abc", "x": 1}\'',
    'vllm serve m --hf-overrides \'{"hf_token": "<redacted>", "x": 1}\'',
  ],
  ['x --model-url https://user:pa55@host/models', 'x --model-url https://user:<redacted>@host/models'],
  ['x --some sk-ABCDEFGHIJKLMNOPQRSTUV', 'x --some <redacted>'],
  ["vllm serve m '--api-key=two words' --port 1", "vllm serve m '--api-key=<redacted>' --port 1"],
  ['vllm serve m "--api-key" "abc def"', 'vllm serve m "--api-key" <redacted>'],
  [
    'vllm serve m \\\n  --api-key \\\n  sk-abc \\\n  --port 8000',
    'vllm serve m \\\n  --api-key \\\n  <redacted> \\\n  --port 8000',
  ],
  ['export HF_TOKEN=abc; vllm serve m', 'export HF_TOKEN=<redacted>; vllm serve m'],
  ['x --api-key --port 8000', 'x --api-key --port 8000'],
  // Not secrets: must stay.
  [
    'vllm serve m --max-num-batched-tokens 8192 --tokenizer t --max-tokens 5',
    'vllm serve m --max-num-batched-tokens 8192 --tokenizer t --max-tokens 5',
  ],
  ['MAX_TOKENS=5 TOKENIZERS_PARALLELISM=false run', 'MAX_TOKENS=5 TOKENIZERS_PARALLELISM=false run'],
  [
    'x --ssl-keyfile /k.pem --api-key-file /secret/path',
    'x --ssl-keyfile /k.pem --api-key-file /secret/path',
  ],
  ['x --kv-cache-dtype fp8 --key-value 3', 'x --kv-cache-dtype fp8 --key-value 3'],
];

describe('redactCommandLine', () => {
  it.each(CASES)('%s', (input, expected) => {
    expect(redactCommandLine(input)).toBe(expected);
  });

  it('keeps the seed launch command (already redacted) unchanged, including its quoted JSON', () => {
    const seed =
      'env VLLM_USE_V2_MODEL_RUNNER=1 VLLM_ENGINE_READY_TIMEOUT_S=3600 "$HOME/env_h200/bin/vllm" serve zai-org/GLM-5.3-Flash --served-model-name glm --api-key <redacted> --dtype bfloat16 --speculative-config \'{"method":"dflash","model":"incoai/GLM-5.3-Flash-DFlash2","num_speculative_tokens":7}\'';
    expect(redactCommandLine(seed)).toBe(seed);
    expect(redactCommandLine(seed.replace('<redacted>', 'sk-live-key-XYZ'))).toBe(seed);
  });
});
