"""The Real model tab in Chinese (ui/real_model_tab.py, serve/real_model.py, lab/broken_model.py)."""

EXACT: dict[str, str] = {
    "Real model": "真实模型",
    "### Break a real model\nA trained model, every layer and head, on your sentence. Lift the causal mask, drop the √d "
    "scaling or zero\nsome heads: the change reaches **every layer**, and the model's predictions say what it cost — "
    "the\nlikeliest next words and the sentence's loss in bits per token, intact beside broken. GPT-2 is here when\n"
    "the app names one (`ATTENTION_LAB_GPT2`, docs/app.md); the tiny model trained here always is.":
        "### 弄坏一个真实模型\n一个训练好的模型，你的句子上的每一层、每一个头。去掉因果掩码、去掉 √d 缩放，或者把"
        "某些头置零：改动会作用到**每一层**，而模型的预测会说明代价——最可能的下一个词，以及这个句子"
        "每个词元的损失（比特），完好的和弄坏的并排。应用指定了 GPT-2 时（`ATTENTION_LAB_GPT2`，见"
        "docs/app.md）这里就有 GPT-2；在这里训练的小模型一直都在。",
    "heads to zero: a JSON list of [layer, head], e.g. [[0, 1], [5, 3]]": "要置零的头：[层, 头] 的 JSON 列表，例如 [[0, 1], [5, 3]]",
    "The likeliest next words after the sentence": "句子之后最可能的下一个词",
    "rank": "名次",
    "intact: next word (p)": "完好：下一个词（概率）",
    "broken: next word (p)": "弄坏：下一个词（概率）",
}

TEMPLATES: list[tuple[str, str]] = [
    ("layer {layer} head {head}: spread out (no pattern above 0.4)", "第 {layer} 层第 {head} 个头：分散（没有超过 0.4 的模式）"),
    ("layer {layer} head {head}: {pattern}, mean weight {weight}", "第 {layer} 层第 {head} 个头：{pattern}，平均权重 {weight}"),
    ("**Loss on this sentence**: {intact} bits per token intact, **{broken}** broken ({change}). Broken: {what}.",
     "**这个句子上的损失**：完好时每个词元 {intact} 比特，弄坏后 **{broken}**（{change}）。弄坏的是：{what}。"),
    ("{n} head(s) zeroed", "{n} 个头被置零"),
]

PHRASES: dict[str, str] = {
    "nothing (the intact model: switch the mask or √d off, or zero heads, to break it)":
        "什么都没有（这是完好的模型：关掉掩码或 √d，或者把头置零，就能弄坏它）",
    "the causal mask lifted in every layer (each word sees the words after it)": "每一层都去掉了因果掩码（每个词都能看到它后面的词）",
    "no 1/√d_head in every layer": "每一层都没有 1/√d_head",
}
