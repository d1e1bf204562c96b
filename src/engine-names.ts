// The engines the tool knows by name: what --engine takes (target/engines has one adapter each) and, but for
// `generic`, the protocol flavors the simulated engine speaks (sim --flavor). Below both, so the option table
// names them without importing either.
export const FLAVORS = ['vllm', 'sglang', 'llamacpp', 'tgi', 'ollama', 'trtllm'] as const;
export const ENGINE_NAMES = [...FLAVORS, 'generic'] as const;
