"""What the teaching views compute and say (core/lab, core/transfer.py, core/serve/views.py): checks, notes,
summaries, the trained model's head roles, tables and the step-through's formulas."""

from core.lab.steps import LATEX

# The step-through's typeset formulas: maths reads the same in both languages, but for the words of the mask's cases.
_MASKED_ZH = LATEX["masked"].replace(r"\text{if } i \text{ may attend to } j", r"\text{若 } i \text{ 可以关注 } j").replace(
    r"\text{otherwise}", r"\text{否则}")
FORMULAS = {f"$$\\large {tex}$$": f"$$\\large {_MASKED_ZH if name == 'masked' else tex}$$" for name, tex in LATEX.items()}

EXACT: dict[str, str] = {
    **FORMULAS,
    # ---- the Attention tab's check and notes (lab/session.py, lab/text.py)
    "every row sums to 1": "每行之和都为 1",
    "some rows hold NaN or infinite weights: they are not probabilities": "有些行含有 NaN 或无穷大的权重：它们不是概率",
    "Chinese written without spaces was cut into words automatically (rjieba); put spaces between words to choose "
    "them yourself.": "没有空格的中文已自动分词（rjieba）；想自己决定怎么分，就在词之间加空格。",
    "Chinese written without spaces is split one character per token here: the rjieba segmenter is not installed.":
        "这里没有空格的中文按一个字一个词元切分：没有安装 rjieba 分词器。",
    "Chinese written without spaces was cut into words automatically (rjieba).": "没有空格的中文已自动分词（rjieba）。",
    "Click a token or a cell: its row and column light up in every head. Hover a cell for its numbers.":
        "点击一个词元或一个格子：它所在的行和列会在每个头中高亮。鼠标悬停在格子上可看数值。",
    # ---- Causality (lab/causality.py)
    "There are no rows before position 0.": "位置 0 之前没有行。",
    "Nothing changed: the replacement is the same token.": "什么都没变：替换成的是同一个词元。",
    # ---- Step through (lab/steps.py)
    "Q": "Q", "K": "K", "V": "V",
    "scores": "分数", "scaled": "缩放后", "mask": "掩码", "masked": "加掩码后", "weights": "权重",
    "context": "上下文", "output": "输出",
    "scores = Q · Kᵀ": "分数 = Q · Kᵀ",
    "mask: True where a query may attend to a key": "掩码: 查询可以关注该键的地方为 True",
    "masked = scaled, with -inf where the mask says no": "加掩码后 = 缩放后, 掩码说不的地方填 -inf",
    "weights = softmax(masked) over each row": "权重 = 对每一行做 softmax(加掩码后)",
    "context = weights · V": "上下文 = 权重 · V",
    "output = merge(all heads' context) · W_o": "输出 = 合并(所有头的上下文) · W_o",
    "scaled = scores (this variant does not divide by √d_head)": "缩放后 = 分数 (这个变体不除以 √d_head)",
    "weights = the variant's own function of masked (rows need not sum to 1)":
        "权重 = 这个变体自己对 加掩码后 的函数 (每行之和不一定为 1)",
    "scaled (off)": "缩放（关闭）",
    "scores = score(Q, K): the variant's own, not Q · Kᵀ": "分数 = score(Q, K): 这个变体自己的, 不是 Q · Kᵀ",
    "mask = allowed(T): the variant's own, True where a query may attend to a key":
        "掩码 = allowed(T): 这个变体自己的, 查询可以关注该键的地方为 True",
    "weights = normalise(masked): the variant's own function of each row": "权重 = normalise(加掩码后): 这个变体自己对每一行的函数",
    "weights = normalise(masked): the variant's own function of each row (rows need not sum to 1)":
        "权重 = normalise(加掩码后): 这个变体自己对每一行的函数 (每行之和不一定为 1)",
    "output = merge(all heads' context): the variant's own": "输出 = merge(所有头的上下文): 这个变体自己的",
    "scaled = scores + bias(T), the variant's bias (this variant does not divide by √d_head)":
        "缩放后 = 分数 + bias(T), 这个变体的偏置 (这个变体不除以 √d_head)",
    # ---- Masking, Model and Transfer tables (lab/model_stats.py, lab/transfer_report.py, core/transfer.py)
    "part": "部分",
    "share": "占比",
    "total": "总计",
    "attention parameters": "注意力参数",
    "total parameters": "总参数",
    "K/V heads per layer × head width": "每层的 K/V 头数 × 头宽度",
    "KV cache per token (fp16, all layers)": "每个词元的 KV 缓存（fp16，所有层）",
    "equivalent: the outputs are bit-for-bit identical": "等价：两者的输出逐位完全相同",
    "module": "模块",
    "kind": "类型",
    "shape": "形状",
    "transfer": "迁移",
    "verdict": "结论",
    "max |diff|": "最大差值 |Δ|",
    "parameter": "参数",
    "fused CausalSelfAttention → PyTorch's nn.MultiheadAttention (mask polarity flipped once)":
        "融合的 CausalSelfAttention → PyTorch 的 nn.MultiheadAttention（掩码的真假含义翻转一次）",
    "SelfAttention_v2 has qkv_bias=True, but SelfAttention_v1 has no bias to copy it into":
        "SelfAttention_v2 设置了 qkv_bias=True，但 SelfAttention_v1 没有可以接收偏置的参数",
    # ---- the trained tiny model (lab/trained_view.py)
    "previous token": "前一个词元",
    "itself": "自身",
    "first token": "第一个词元",
    "earlier mention": "前一次出现",
    "noun about to repeat": "即将重复的名词",
    "pronoun → its noun": "代词 → 它所指的名词",
    "spread out": "分散",
    "the token just before": "紧挨着的前一个词元",
    "the token itself": "这个词元自身",
    "the first token of the sentence": "句子的第一个词元",
    "the earlier mention of the same noun (read at the repeat)": "同一名词的前一次出现（在重复处读取）",
    "the earlier mention of the noun that comes next (predicts the repeat)": "下一个名词的前一次出现（预测重复）",
    "the noun 它 / it refers to, read at the pronoun (违约金, not the document 合同)":
        "“它”/ it 所指的名词，在代词处读取（违约金，而不是文件“合同”）",
    "Every layer and head of the trained model": "训练好的模型的每一层、每个头",
    # ---- Experiments (ui/experiments_tab.py)
    "served from the cache": "直接取自缓存",
    "served from the cache.": "直接取自缓存。",
    "Stopped: not cached.": "已停止：不写入缓存。",
    # ---- Plugins tab statuses
    "ok": "正常",
    "0 of 1 in every row": "每行 1 中占 0",
    # the check line as the page writes it from its own weights (core.render.matrix.CHECK_LABELS)
    "{rows}; weight above the diagonal: {future}": "{rows}；对角线以上的权重：{future}",
    "{rows}; weight above the diagonal: {future}; weight on blocked keys: {blocked}":
        "{rows}；对角线以上的权重：{future}；被挡住的键上的权重：{blocked}",
    "rows are off 1 by up to {error}": "各行之和与 1 最多相差 {error}",
    "{value} of 1 per row on average (the future leaks in)": "平均每行 1 中占 {value}（未来泄漏进来了）",
    "{value} of 1 per row on average": "平均每行 1 中占 {value}",
    "Check (measured on the weights drawn)": "检查（在所画的权重上测得）",
    "weight (each row sums to 1); colours fitted to this sentence: 0 to {max}, larger at full colour":
        "权重（每行之和为 1）；颜色按这个句子拟合：0 到 {max}，更大的以最深颜色显示",
    "(none)": "（无）",
    # ---- a lab link (ui/lab_link.py): the Copy link button (its other words: core/locales, core.i18n.t)
    "Copy link": "复制链接",
}

TEMPLATES: list[tuple[str, str]] = [
    ("weight (each row sums to 1); colours fitted to this sentence: 0 to {max}, larger at full colour",
     "权重（每行之和为 1）；颜色按这个句子拟合：0 到 {max}，更大的以最深颜色显示"),
    # ---- check and notes
    ("{rows}; weight above the diagonal: {future}; weight on blocked keys: {blocked}",
     "{rows}；对角线以上的权重：{future}；被挡住的键上的权重：{blocked}"),
    ("{rows}; weight above the diagonal: {future}", "{rows}；对角线以上的权重：{future}"),
    ("rows are off 1 by up to {error}", "各行之和与 1 最多相差 {error}"),
    ("{value} of 1 per row on average (the future leaks in)", "平均每行 1 中占 {value}（未来泄漏进来了）"),
    ("{value} of 1 per row on average", "平均每行 1 中占 {value}"),
    ("The sentence was cut: the lab reads its first {limit} tokens (at most {chars} characters).",
     "句子被截断了：实验室只读取前 {limit} 个词元（最多 {chars} 个字符）。"),
    ("{title} has one head as wide as d_model; n_heads is not used.", "{title} 只有一个与 d_model 同宽的头；不使用 n_heads。"),
    ("plugin '{plugin}' returned {bad} attention weights that are NaN or infinite: they are drawn as 0 and written "
     "as \"NaN\" in the JSON.",
     "插件 '{plugin}' 返回了 {bad} 个 NaN 或无穷大的注意力权重：它们画成 0，在 JSON 中写作 \"NaN\"。"),
    # ---- Causality
    ("Rows 0 to {last}, before the edit, are byte-identical (change exactly 0).",
     "修改位置之前的第 0 到 {last} 行逐字节完全相同（变化恰好为 0）。"),
    ("Rows before the edit changed by up to {diff}: without the mask the future leaks into the past.",
     "修改位置之前的行最多变化了 {diff}：没有掩码时，未来泄漏进了过去。"),
    ("Rows {first} to {last} change (up to {diff}).", "第 {first} 到 {last} 行发生了变化（最多 {diff}）。"),
    # ---- Masking & scaling
    ("-inf before softmax and softmax-then-renormalise agree to {diff} (float rounding; the same numbers).",
     "“softmax 之前填 -inf”与“先 softmax 再重新归一化”相差不超过 {diff}（浮点舍入；是同样的数字）。"),
    ("Filling with 0 instead of -inf leaks weight to the future: up to {worst} of a row's weight (row 0: {first}).",
     "用 0 而不是 -inf 填充，会把权重漏给未来：最多漏掉一行权重的 {worst}（第 0 行：{first}）。"),
    ("q·k of two random d-dimensional vectors has standard deviation √d: at d = {d} the unscaled scores spread "
     "{unscaled_std} and the softmax puts {unscaled_max} on one key on average (nearly one-hot, tiny gradients); "
     "divided by √d they spread {scaled_std} and the largest weight stays {scaled_max}.",
     "两个随机 d 维向量的点积 q·k 的标准差是 √d：在 d = {d} 时，不缩放的分数标准差为 {unscaled_std}，"
     "softmax 平均把 {unscaled_max} 的权重放在一个键上（几乎是 one-hot，梯度很小）；除以 √d 后标准差为 "
     "{scaled_std}，最大权重只有 {scaled_max}。"),
    # ---- Step through
    ("Q = x · W_q  (head {head})", "Q = x · W_q  (头 {head})"),
    ("K = x · W_k  (K/V head {kv_head})", "K = x · W_k  (K/V 头 {kv_head})"),
    ("V = x · W_v  (K/V head {kv_head})", "V = x · W_v  (K/V 头 {kv_head})"),
    ("scaled = scores / √d_head, d_head = {d_head}", "缩放后 = 分数 / √d_head, d_head = {d_head}"),
    ("scaled = scores (not scaled), d_head = {d_head}", "缩放后 = 分数 (不缩放), d_head = {d_head}"),
    # a plugin's formulas, read from the hooks it overrides (lab/hook_formulas.py)
    ("Q = project(x): the variant's own queries  (head {head})", "Q = project(x): 这个变体自己的查询  (头 {head})"),
    ("K = project(x): the variant's own keys  (K/V head {kv_head})", "K = project(x): 这个变体自己的键  (K/V 头 {kv_head})"),
    ("V = project(x): the variant's own values  (K/V head {kv_head})",
     "V = project(x): 这个变体自己的值  (K/V 头 {kv_head})"),
    ("scaled = scores / √d_head + bias(T), the variant's bias, d_head = {d_head}",
     "缩放后 = 分数 / √d_head + bias(T), 这个变体的偏置, d_head = {d_head}"),
    ("scaled = scores (not scaled) + bias(T), the variant's bias, d_head = {d_head}",
     "缩放后 = 分数 (不缩放) + bias(T), 这个变体的偏置, d_head = {d_head}"),
    ("masked = scaled, with {fill} where the mask says no", "加掩码后 = 缩放后, 掩码说不的地方填 {fill}"),
    ("shape {shape}", "形状 {shape}"),
    ("{name}  ({shape})", "{name}  ({shape})"),
    ("`{formula}`", "`{formula}`"),
    ("**{shape}**", "**{shape}**"),
    ("{H} query heads share {Hkv} K/V heads: {groups}.", "{H} 个查询头共享 {Hkv} 个 K/V 头：{groups}。"),
    ("K/V head {g} ← query heads {heads}", "K/V 头 {g} ← 查询头 {heads}"),
    ("Each token sees itself and the {n} tokens before it, plus every token at a multiple of {stride}.",
     "每个词元能看到自身和它前面的 {n} 个词元，另外还能看到位置是 {stride} 的倍数的每个词元。"),
    ("Each token sees itself and the {n} tokens before it.", "每个词元能看到自身和它前面的 {n} 个词元。"),
    ("{H} head(s), each with its own K and V; the mask is causal (lower triangle).",
     "{H} 个头，每个头有自己的 K 和 V；掩码是因果掩码（下三角）。"),
    ("{H} head(s), each with its own K and V; the mask is off (every token sees every token).",
     "{H} 个头，每个头有自己的 K 和 V；没有掩码（每个词元都能看到所有词元）。"),
    # ---- Model
    ("**{preset}** with **{variant}**: {total} parameters ({exact}); attention is {share} of them. KV cache at full "
     "context: {cache} (saves {pct} against plain multi-head).",
     "**{preset}** 配 **{variant}**：共 {total} 个参数（{exact}）；其中注意力占 {share}。满上下文时的 KV 缓存："
     "{cache}（比普通多头节省 {pct}）。"),
    ("**{preset}** with **{variant}**: {total} parameters ({exact}); attention is {share} of them. KV cache at full "
     "context: {cache} (costs {pct} against plain multi-head).",
     "**{preset}** 配 **{variant}**：共 {total} 个参数（{exact}）；其中注意力占 {share}。满上下文时的 KV 缓存："
     "{cache}（比普通多头多用 {pct}）。"),
    ("n_kv_heads={asked} does not divide the {heads} heads of {preset}, so this shows n_kv_heads={shown} "
     "(choose {choices}).",
     "n_kv_heads={asked} 不能整除 {preset} 的 {heads} 个头，所以这里显示的是 n_kv_heads={shown}（可选 {choices}）。"),
    ("tokens the cache holds at T = {T}", "T = {T} 时缓存保存的词元数"),
    ("KV cache at T = {T} (one sequence)", "T = {T} 时的 KV 缓存（单个序列）"),
    # ---- Transfer
    ("The copy failed: {error}", "复制失败：{error}"),
    ("equivalent: the outputs agree to within {atol} (float rounding) (this mistake happens to be harmless here)",
     "等价：两者的输出相差不超过 {atol}（浮点舍入）（这个错误在这里恰好无害）"),
    ("equivalent: the outputs agree to within {atol} (float rounding)", "等价：两者的输出相差不超过 {atol}（浮点舍入）"),
    ("NOT equivalent: the outputs differ by up to {diff}: no error was raised, the answer is silently wrong",
     "不等价：两者的输出最多相差 {diff}：没有报任何错，答案却悄悄地错了"),
    ("NOT equivalent: the outputs differ by up to {diff}", "不等价：两者的输出最多相差 {diff}"),
    ("{n} stacked heads (MultiHeadAttentionWrapper) → one fused qkv (CausalSelfAttention)",
     "{n} 个堆叠的头（MultiHeadAttentionWrapper）→ 一个融合的 qkv（CausalSelfAttention）"),
    # ---- the trained tiny model
    ("Layer {layer} head {head}: {name} head; mean weight {w} on {pattern} over {n} held-out sentences, {here} in "
     "this sentence.",
     "第 {layer} 层第 {head} 个头：“{name}”头；在 {n} 个留出句子上，平均把 {w} 的权重放在{pattern}上，"
     "在这个句子中是 {here}。"),
    ("Layer {layer} head {head}: {name} head; mean weight {w} on {pattern} over {n} held-out sentences.",
     "第 {layer} 层第 {head} 个头：“{name}”头；在 {n} 个留出句子上，平均把 {w} 的权重放在{pattern}上。"),
    ("Layer {layer} head {head}: spread out; no pattern gets {t} of its weight over {n} held-out sentences.",
     "第 {layer} 层第 {head} 个头：分散；在 {n} 个留出句子上，没有哪种模式能得到它 {t} 的权重。"),
    ("Other patterns: {others}.", "其他模式：{others}。"),
    ("In this sentence, the row of '{pronoun}' ({row}) puts its largest weight, {weight}, on '{key}' ({col}).",
     "在这个句子中，'{pronoun}' 所在的行（{row}）把最大的权重 {weight} 放在 '{key}'（{col}）上。"),
    ("Measured: {others}.", "实测：{others}。"),
    ("head {h}: {name}", "头 {h}：{name}"),
    ("Words the tiny model never saw, read as {unk}: {words}.", "tiny 小模型没见过的词，按 {unk} 读取：{words}。"),
    # ---- Experiments
    ("**{state}.** Training loss: with mask {tl_m}, without mask **{tl_u}** bits/word. Honest loss: with mask {hl_m}, "
     "without mask **{hl_u}** bits/word.",
     "**{state}。** 训练损失：有掩码 {tl_m}，无掩码 **{tl_u}** bits/词。诚实损失：有掩码 {hl_m}，"
     "无掩码 **{hl_u}** bits/词。"),
    ("{steps} steps in {seconds} s (stopped: not cached)", "{steps} 步，用时 {seconds} 秒（已停止：不写入缓存）"),
    ("served from the cache (stopped: not cached)", "直接取自缓存（已停止：不写入缓存）"),
    ("{steps} steps in {seconds} s.", "{steps} 步，用时 {seconds} 秒。"),
    ("{steps} steps in {seconds} s", "{steps} 步，用时 {seconds} 秒"),
    ("Max weight: scaled {s}, unscaled **{u}**; gradient at the softmax input: scaled {gs}, unscaled **{gu}**.",
     "最大权重：缩放 {s}，不缩放 **{u}**；softmax 输入处的梯度：缩放 {gs}，不缩放 **{gu}**。"),
]

PHRASES: dict[str, str] = {
    "previous token": "前一个词元",
    "itself": "自身",
    "first token": "第一个词元",
    "earlier mention": "前一次出现",
    "noun about to repeat": "即将重复的名词",
    "pronoun → its noun": "代词 → 它所指的名词",
}
