"""Names kept as themselves, and the small words a list of values is made of."""

KEEP: set[str] = {
    # the built-in variants and the tiny model
    "alibi", "linear", "tiny", "gqa", "multi-head", "single-head", "sliding-window", "multi-head-stacked", "none",
    "no-transpose", "swap-query-key", "softmax", "relu", "sigmoid", "elu",
    # technical words a Chinese reader meets as they are
    "GPT", "GPT-2", "LayerNorm", "MLP", "SDPA", "JSON", "PNG", "API", "PyTorch", "Python", "nanoGPT", "temperature", "KV", "GQA", "RoPE",
    "ALiBi", "FlexAttention", "LLaMA", "Mistral", "Longformer", "NaN", "inf", "nats", "bits", "MiB", "KiB",
    "GiB", "ms", "fp16", "fp32", "B", "M", "T", "Q", "K", "V", "q", "k", "v", "x", "d", "H", "d_in", "d_out",
    "autograd", "pluggy", "rjieba", "torch", "nn", "qkv", "CausalSelfAttention", "CausalAttention",
    "MultiHeadAttentionWrapper", "SelfAttention_v1", "SelfAttention_v2", "True", "False", "true", "false",
    "forward", "trace", "build", "cuda", "CPU", "GPU", "RSS", "VmHWM", "unk", "list", "dict", "tuple", "str",
    "int", "float", "bool", "NoneType", "one-hot", "U", "sdpa", "window", "stride", "n_kv_heads",
    "slope", "BLOOM", "MPT", "Katharopoulos", "RNN",  # the example plugins' option, models and paper
    "Hugging", "Face", "Hub", "HF_HUB_OFFLINE", "preload_from_hub", "README.md", "Space",  # where GPT-2 comes from
    "ablate",  # the /model_attention parameter
}

PHRASES: dict[str, str] = {
    "or": "或",
    "and": "和",
}
