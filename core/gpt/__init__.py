"""The GPT's parts behind core.model: config and presets, the block, the KV cache, decoding, GPT-2 loading."""
