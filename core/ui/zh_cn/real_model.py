"""The Real model tab in Chinese (ui/real_model_tab.py, serve/real_model.py, lab/broken_model.py)."""

EXACT: dict[str, str] = {
    "Real model": "真实模型",
    "Step through one layer and head of this model": "逐步查看这个模型的某一层、某一个头",
    "Causality: change a later token, every layer's earlier rows stay identical": "因果性：改动后面的一个词元，每一层前面的行都完全不变",
    "One token of the sentence is replaced; the maps show, per layer, how far any head's weights moved. With the "
    "causal mask the rows before the change do not move at all.":
        "句子中的一个词元被替换；每张图对应一层，显示任意一个头的权重变化了多少。有因果掩码时，改动之前的行完全不动。",
    "token to change (position)": "要改动的词元（位置）",
    "replace it with (one token; GPT-2 words start with a space)": "替换成（一个词元；GPT-2 的词以空格开头）",
    "query '{q}' ({i}) → key '{k}' ({j}): max |Δ weight| over the heads {value}":
        "查询 '{q}'（{i}）→ 键 '{k}'（{j}）：各个头中最大的 |Δ 权重| {value}",
    "max |Δ weight| over the heads": "各个头中最大的 |Δ 权重|",
    "With the causal mask, nothing an earlier row computes can depend on a later token.":
        "有因果掩码时，前面的行算出的任何东西都不可能依赖后面的词元。",
    "Without the causal mask the change reaches back: the earlier rows moved too.": "没有因果掩码时，改动会往回传：前面的行也变了。",
    "the replacement must be text, like ' dog' (a space first for a word inside a GPT-2 sentence)":
        "替换内容必须是文本，例如 ' dog'（GPT-2 句子中间的词前面要有一个空格）",
    "scaled = scores (the √d scaling is switched off)": "scaled = scores（√d 缩放已关闭）",
    "masked = scaled (the causal mask is switched off: nothing is blocked)": "masked = scaled（因果掩码已关闭：没有位置被屏蔽）",
    "masked = scaled, with -inf where the causal mask says no": "masked = scaled，因果掩码不允许的位置填 -inf",
    "K = ln_1(x) · W_k  (its second third)": "K = ln_1(x) · W_k（它的第二个三分之一）",
    "V = ln_1(x) · W_v  (its last third)": "V = ln_1(x) · W_v（它的最后三分之一）",
    "heads to zero: a JSON list of [layer, head], e.g. [[0, 1], [5, 3]]": "要置零的头：[层, 头] 的 JSON 列表，例如 [[0, 1], [5, 3]]",
    "The likeliest next words after the sentence": "句子之后最可能的下一个词",
    "rank": "名次",
    "intact: next word (p)": "完好：下一个词（概率）",
    "broken: next word (p)": "弄坏：下一个词（概率）",
}

TEMPLATES: list[tuple[str, str]] = [
    ("L{layer}\u00a0H{head}\u00a0· {pattern}", "L{layer}\u00a0H{head}\u00a0· {pattern}"),
    ("layer {layer} head {head}: spread out (no pattern gets {threshold} of its weight); measured: {others}",
     "第 {layer} 层第 {head} 个头：分散（没有哪个模式得到 {threshold} 的权重）；测得：{others}"),
    ("Q = ln_1(x) · W_q  (the first third of the layer's QKV projection, GPT-2's c_attn; layer {layer} head {head})",
     "Q = ln_1(x) · W_q（这一层 QKV 投影的第一个三分之一，即 GPT-2 的 c_attn；第 {layer} 层第 {head} 个头）"),
    ("**Token {position} changed.** Rows before it (0 to {last}), in every one of the {L} layers and {H} heads: "
     "max |Δ weight| = **{earlier}**, max |Δ logit| = {logits}. Rows from it on: max |Δ weight| = "
     "**{later}**. {verdict}",
     "**第 {position} 个词元被改动。** 它之前的行（0 到 {last}），在全部 {L} 层、{H} 个头中：最大 |Δ 权重| = "
     "**{earlier}**，最大 |Δ logit| = {logits}。从它开始的行：最大 |Δ 权重| = **{later}**。{verdict}"),
    ("L{layer}: before {earlier} · after {later}", "L{layer}：之前 {earlier} · 之后 {later}"),
    ("Token {position} '{old}' → '{new}'; each map is one layer, the largest change of any head; its title: the "
     "largest on the rows before the change · from it on",
     "第 {position} 个词元 '{old}' → '{new}'；每张图是一层，显示任意一个头的最大变化；标题：改动之前的行上的最大值 · 从改动开始的行上的最大值"),
    ("layer={value} does not exist; this model has layers 0 to {last}", "layer={value} 不存在；这个模型的层是 0 到 {last}"),
    ("head={value} does not exist; this model has heads 0 to {last}", "head={value} 不存在；这个模型的头是 0 到 {last}"),
    ("position={value} is not a token of the sentence; choose 1 to {last} (token 0 has nothing before it)",
     "position={value} 不是句子中的词元；请选择 1 到 {last}（第 0 个词元前面什么都没有）"),
    ("the replacement '{word}' is {n} tokens for this model; type one that is a single token (e.g. ' dog')",
     "替换内容 '{word}' 对这个模型是 {n} 个词元；请输入只有一个词元的内容（例如 ' dog'）"),
    ("the replacement '{word}' is the token already at position {position}; type a different one",
     "替换内容 '{word}' 就是第 {position} 个位置上已有的词元；请换一个"),
]

PHRASES: dict[str, str] = {
    "previous token": "前一个词元",
    "first token / sink": "第一个词元 / 汇点",
    "itself": "自身",
    "same token earlier": "前面相同的词元",
    "induction-like": "类归纳",
    "the token just before": "紧挨着的前一个词元",
    "the first token (a place to put weight that is not needed)": "第一个词元（放置用不上的权重的地方）",
    "the token itself": "词元自身",
    "earlier copies of the same token": "前面出现过的相同词元",
    "the token that followed an earlier copy of this one": "这个词元上次出现时紧跟在它后面的词元",
    "prev": "前",
    "sink": "汇",
    "self": "自",
    "dup": "重",
    "induct": "归纳",
    "spread": "散",
    "the causal mask lifted in every layer (each word sees the words after it)": "每一层都去掉了因果掩码（每个词都能看到它后面的词）",
}

KEEP: set[str] = {  # the model families a real model belongs to, and the models the docs name: names, kept as they are
    "Llama", "Qwen", "Qwen2", "Qwen2.5", "Qwen3", "Gemma", "SmolLM2", "ATTENTION_LAB_MODELS", "transformers",
}
