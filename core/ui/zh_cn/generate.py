"""The Generate tab in Chinese: its page texts (ui/generate_tab.py), sentences (serve/generate.py,
generate_inputs.py, cache_cost.py), drawn views and tables (render/generate_views.py) and its mistakes
(serve/generate_inputs.py, lab/predict.py)."""

EXACT: dict[str, str] = {
    # ---- the page (ui/generate_tab.py)
    "Generate": "生成",
    "### From attention to the next word\n"
    "A GPT reads the sentence and gives every word of its vocabulary a probability of coming next. "
    "Pick where to look with **position**; **temperature** flattens (above 1) or sharpens (below 1) the "
    "probabilities, **top-k** keeps only the k likeliest words. **Generate one word** draws the next word "
    "with the **seed** (the same seed gives the whole class the same word), appends it, and shows how it "
    "looks back at every earlier token in every head, and the row it adds to the KV cache.":
        "### 从注意力到下一个词\n"
        "GPT 读完句子后，给词表里的每个词一个概率：它接下来出现的可能性有多大。用 **位置** 选择在哪里预测；"
        "**温度 temperature** 让概率变平（大于 1）或变尖（小于 1），**top-k** 只保留最可能的 k 个词。"
        "**生成一个词** 用 **随机种子** 采样下一个词（同一个随机种子让全班得到同一个词），把它接到句子后面，"
        "并展示它在每个头中如何回看之前的每个词元，以及它给 KV 缓存添加的那一行。",
    "Tiny model (trained here)": "tiny 小模型（在本实验室训练）",
    "GPT-2, pretrained (your local copy)": "GPT-2，预训练（你本地的副本）",
    "the tiny GPT trained by the lab on its synthetic corpus (it knows only the corpus's words)":
        "本实验室在合成语料上训练的 tiny GPT（它只认识语料里的词）",
    "position: predict the word after this token": "位置：预测这个词元后面的下一个词",
    "temperature": "温度 temperature",
    "1 = the model's own probabilities": "1 = 模型自己给出的概率",
    "top_k (0 = every word; 1 = always the likeliest)": "top-k（0 = 保留所有词；1 = 总是取最可能的词）",
    "seed (which word is drawn)": "随机种子（决定采样到哪个词）",
    "Generate one word": "生成一个词",
    "What the bars show": "柱状图显示了什么",
    "The word just generated": "刚刚生成的词",
    "### What the KV cache holds": "### KV 缓存里存了什么",
    "Generate a word to see each layer's keys (K) and values (V), one row per token the model has read. A new word "
    "adds one row to each; the rows above it never change, which is why generation can keep them instead of "
    "recomputing them.":
        "生成一个词，就能看到每一层的键（K）和值（V）：模型读过的每个词元占一行。每个新词都在 K 和 V 中各添加一行；"
        "它上面的行永远不变，所以生成时可以把它们保存下来，而不必重新计算。",
    "Generate several words": "生成多个词",
    "n_words (how many words to generate)": "n_words（要生成几个词）",
    "use the KV cache (the same words either way; compare the time)": "使用 KV 缓存（两种方式生成的词完全相同；比较一下耗时）",
    "Generated": "生成结果",
    "One row per generated word": "每个生成的词占一行",
    "### The cache of a real-sized model": "### 真实规模模型的缓存",
    "Counted on PyTorch's meta device for the preset you pick: what each layer keeps, what one token costs, and "
    "how much one decoding step computes with and without the cache. Grouped-query attention shares each K/V head "
    "between several query heads; a sliding window keeps only the last window-1 keys.":
        "在 PyTorch 的 meta 设备上为你选的预设计数：每一层要保存什么，每个词元占多少内存，以及一次解码步骤在有缓存和"
        "没有缓存时分别要计算多少。分组查询注意力让几个查询头共用一个 K/V 头；滑动窗口只保留最近的 window-1 个键。",
    "T: tokens already in the context": "T：上下文中已有的词元数",
    "Multi-head, grouped-query and sliding-window attention at T": "T 个词元时的多头、分组查询和滑动窗口注意力",
    "### Measured: one generated token, with and without the cache": "### 实测：生成一个词元，有缓存与没有缓存",
    "Saved benchmark (core/assets/decode.json)": "保存的基准测试（core/assets/decode.json）",
    "JSON (the /next_words API output)": "JSON（/next_words API 的输出）",
    "JSON (the generated word)": "JSON（生成的词）",
    "JSON (the /generate API output)": "JSON（/generate API 的输出）",
    "JSON (the cache numbers)": "JSON（缓存的各项数字）",
    "position (-1 = the last token)": "位置（-1 = 最后一个词元）",
    # ---- the sentences it answers with (serve/generate.py, serve/cache_cost.py)
    "with the KV cache (one token run per step)": "使用 KV 缓存（每步只运行一个词元）",
    "without a cache (the whole sentence run again each step)": "不使用缓存（每步都把整个句子重新运行一遍）",
    "No measured decode benchmark ships with this copy; run `attention-lab bench --decode --out core/assets`.":
        "这个副本没有附带实测的解码基准；请运行 `attention-lab bench --decode --out core/assets`。",
    "GPT-2 is not switched on in this app; set ATTENTION_LAB_GPT2 to a GPT-2 checkpoint folder or Hub id "
    "(openai-community/gpt2) and restart it":
        "这个应用没有开启 GPT-2；请把 ATTENTION_LAB_GPT2 设为 GPT-2 检查点所在的文件夹或 Hub 名称"
        "（openai-community/gpt2），然后重启应用",
    # ---- the bars, the new word's rows, the cache's rows (render/generate_views.py)
    "next word": "下一个词",
    "probability": "概率",
    "the word that follows in the sentence": "句子中实际接下来的词",
    "earlier token (key)": "之前的词元（键）",
    "head {i} of {head}: '{k}' ({j}) gets weight {value}": "{head}的头 {i}：'{k}'（{j}）得到的权重为 {value}",
    "weight of the new token on each earlier token (each row sums to 1)": "新词元放在每个之前词元上的权重（每行之和为 1）",
    "value (K/V head · dimension)": "数值（K/V 头 · 维度）",
    "token": "词元",
    "{head}: token '{q}' ({i}), column {k}: {value}": "{head}：词元 '{q}'（{i}），列 {k}：{value}",
    "value stored in the cache": "缓存中存放的数值",
    "Each token adds one row to K and one to V in every layer; the last row is the newest word.":
        "每个词元都会在每一层的 K 和 V 中各添加一行；最后一行就是最新的词。",
    "Nothing above it is ever recomputed.": "它上面的行永远不会被重新计算。",
    "Time per generated token, measured (gpt2-small shape, random weights, B = 1, fp32)":
        "每生成一个词元的耗时，实测（gpt2-small 的形状，随机权重，B = 1，fp32）",
    "tokens of context T": "上下文词元数 T",
    "ms per token": "每个词元的 ms",
    "with the KV cache (one row per step)": "使用 KV 缓存（每步一行）",
    "without (the T x T square every step)": "不使用缓存（每步都算 T x T 方阵）",
    # ---- the tables' headers
    "step": "步",
    "word": "词",
    "keys in each layer's cache": "每层缓存中的键数",
    "tokens run through the model": "送入模型运行的词元数",
    "K and V in each layer": "每层的 K 和 V",
    "tokens kept": "保留的词元数",
    "KiB per token": "每个词元的 KiB",
    "cache MiB": "缓存 MiB",
    "scores per step without a cache": "不使用缓存时每步的分数个数",
    "scores per step with it": "使用缓存时每步的分数个数",
    "tokens run per step (without / with)": "每步运行的词元数（无缓存 / 有缓存）",
    "T (context)": "T（上下文）",
    "ms per token with the cache": "使用缓存时每个词元的 ms",
    "ms per token without": "不使用缓存时每个词元的 ms",
    "× faster with the cache": "使用缓存快了多少倍（×）",
}

TEMPLATES: list[tuple[str, str]] = [
    # ---- what the bars show, the word just generated, several words (serve/generate.py)
    ("After '{word}' (position {position}) the likeliest next word is '{best}', with probability {p}; with seed "
     "{seed} the word drawn would be '{drawn}' ({q}).",
     "在 '{word}'（位置 {position}）之后，最可能的下一个词是 '{best}'，概率为 {p}；用随机种子 {seed} 采样会得到 "
     "'{drawn}'（{q}）。"),
    ("After '{word}' (position {position}) the likeliest next word is '{best}', with probability {p}; the sentence "
     "goes on with '{actual}', which the model gives {a}.",
     "在 '{word}'（位置 {position}）之后，最可能的下一个词是 '{best}'，概率为 {p}；句子实际接下来的是 '{actual}'，"
     "模型给它的概率是 {a}。"),
    # the step's four sentences ({n} appears twice in it, so it is read sentence by sentence)
    ("Added '{word}' (probability {p}, seed {seed}).", "添加了 '{word}'（概率 {p}，随机种子 {seed}）。"),
    ("Each layer's cache now holds {n} tokens:", "现在每一层的缓存里有 {n} 个词元："),
    ("K and V are each ({shape}), {kib} KiB in all for this model ({per} bytes per token).",  # (1, 4, 8, 16) whole
     "K 和 V 的形状都是 ({shape})，这个模型总共 {kib} KiB（每个词元 {per} 字节）。"),
    ("This step ran one token through the model; without a cache it would run all {n} again.",
     "这一步只把一个词元送进了模型；没有缓存的话，要把全部 {n} 个词元重新运行一遍。"),
    ("{n} words in {ms} ms ({per} ms a word), {cache}: '{text}'",
     "{n} 个词，用时 {ms} ms（每个词 {per} ms），{cache}：'{text}'"),
    ("After T = {T} tokens, per sequence, fp16. Without a cache the step that predicts token T+1 runs all T tokens "
     "and scores the whole T x T square again; with it, it runs one token and scores one row.",
     "读完 T = {T} 个词元之后，单个序列，fp16。没有缓存时，预测第 T+1 个词元的那一步要把全部 T 个词元重新运行一遍，"
     "并重新计算整个 T x T 方阵的分数；有了缓存，它只运行一个词元，只计算一行分数。"),
    ("Measured with `attention-lab bench --decode` on this project's machine ({machine}, {cpus} CPUs, {threads} "
     "torch thread(s), torch `{torch}`, Python {python}). From T = {low} to {high} the cached step grew {cached}x "
     "and the uncached one {uncached}x.",
     "用 `attention-lab bench --decode` 在本项目的机器上实测（{machine}，{cpus} 个 CPU，{threads} 个 torch 线程，"
     "torch `{torch}`，Python {python}）。从 T = {low} 到 {high}，有缓存的一步耗时变为原来的 {cached} 倍，"
     "没有缓存的一步变为 {uncached} 倍。"),
    # ---- the drawn views (render/generate_views.py)
    ("What comes after '{word}' (position {position}): the {n} likeliest next words",
     "'{word}'（位置 {position}）之后接什么：最可能的 {n} 个下一个词"),
    ("The new word '{word}' looks back: one row per head, one panel per layer.",
     "新词 '{word}' 回看之前的词元：每个头一行，每层一个面板。"),
    ("{which} · layer {layer} {shape}", "{which} · 第 {layer} 层 {shape}"),
    ("Drawn: the first {columns} of the {width} values in each row (the first K/V head's).",
     "图中只画出每行 {width} 个数值中的前 {columns} 个（第一个 K/V 头的）。"),
    ("Drawn: the first {layers} of the {n_layers} layers, and the first {columns} of the {width} values in each row.",
     "图中只画出 {n_layers} 层中的前 {layers} 层，以及每行 {width} 个数值中的前 {columns} 个。"),
    # ---- its mistakes (serve/generate_inputs.py)
    ("{name}={value} is not one of the models; choose {choices}", "{name}={value} 不是可选的模型之一；请选择 {choices}"),
    ("the sentence has {n} tokens; the Generate tab reads at most {most}, so shorten it",
     "这个句子有 {n} 个词元，但“生成”页最多只读 {most} 个；请缩短它"),
    ("{name}={value} must be a number from {low} to {high}; for the likeliest word every time, set top_k to 1",
     "{name}={value} 必须是 {low} 到 {high} 之间的数；如果想每次都得到最可能的词，请把 top_k 设为 1"),
    ("{name}={value} is not one of the presets; choose {choices}", "{name}={value} 不是可选的预设之一；请选择 {choices}"),
    ("{name}={value} is not one of the lengths; choose {choices}", "{name}={value} 不是可选的长度之一；请选择 {choices}"),
]
