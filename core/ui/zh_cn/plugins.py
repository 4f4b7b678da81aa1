"""The Plugins tab, the conformance kit's checks and verdicts, and the built-in variants' own words
(attention_plugins/: titles, summaries, notes, option help)."""

EXACT: dict[str, str] = {
    # ---- the built-in variants (attention_plugins/*.py)
    "Multi-head, fused (CausalSelfAttention)": "多头，融合实现（CausalSelfAttention）",
    "H heads from one fused q|k|v projection, as in GPT-2 and nanoGPT.":
        "H 个头来自一次融合的 q|k|v 投影，和 GPT-2、nanoGPT 中一样。",
    "The reference every other variant is compared with: n_heads heads of width d_model / n_heads, each with its own "
    "queries, keys and values, computed by one matrix multiply and merged by an output projection.":
        "其他所有变体都拿它作参照：n_heads 个宽度为 d_model / n_heads 的头，每个头有自己的查询、键和值，"
        "由一次矩阵乘法算出，再经过输出投影合并。",
    "Multi-head, stacked (MultiHeadAttentionWrapper)": "多头，堆叠实现（MultiHeadAttentionWrapper）",
    "H separate CausalAttention heads, concatenated, then projected.": "H 个独立的 CausalAttention 头，拼接起来，再做投影。",
    "Computes exactly what the fused layer computes (the weights copy across), but with one small matrix multiply "
    "per head: easier to read, slower to run. It saves nothing; it shows what 'fused' means.":
        "计算结果与融合层完全相同（权重可以互相复制），但每个头做一次小的矩阵乘法：更容易读懂，运行更慢。"
        "它什么也不节省；它让你看清“融合”是什么意思。",
    "Single head (CausalAttention)": "单头（CausalAttention）",
    "One attention head as wide as the model; the textbook starting point.": "一个与模型同宽的注意力头；教科书的起点。",
    "One head of width d_model: every token gets one weighting of the others. Compared with multi-head it cannot "
    "attend to two things at once, and it has no output projection, so it saves d_model² weights.":
        "一个宽度为 d_model 的头：每个词元对其他词元只有一种加权方式。与多头相比，它不能同时关注两件事，"
        "也没有输出投影，所以少了 d_model² 个权重。",
    "Grouped-query attention": "分组查询注意力",
    "Query heads share key/value heads in groups (LLaMA 2/3, Mistral).": "查询头按组共享键/值头（LLaMA 2/3、Mistral）。",
    "n_kv_heads: key/value heads; must divide n_heads (1 = multi-query, n_heads = plain multi-head)":
        "n_kv_heads：键/值头的个数；必须整除 n_heads（1 = 多查询注意力，n_heads = 普通多头）",
    "Differs from multi-head only in the keys and values: n_kv_heads of them, each shared by n_heads / n_kv_heads "
    "query heads. It saves K/V projection weights and, at inference, the KV cache shrinks by the factor "
    "n_heads / n_kv_heads.":
        "与多头的区别只在键和值：只有 n_kv_heads 组，每组被 n_heads / n_kv_heads 个查询头共享。"
        "它节省了 K/V 投影的权重；推理时，KV 缓存缩小为原来的 n_kv_heads / n_heads。",
    # ---- the two example plugins this repo ships (examples/): a plugin's own texts are otherwise its own
    "ALiBi (linear biases)": "ALiBi（线性偏置）",
    "Scores minus slope × distance: nearby tokens win, no position embeddings (BLOOM, MPT).":
        "分数减去 slope × 距离：近处的词元占优，不需要位置嵌入（BLOOM、MPT）。",
    "slope: score penalty per token of distance for head 0; head h uses slope / 2**h":
        "slope：第 0 个头每隔一个词元的分数惩罚；第 h 个头用 slope / 2**h",
    "Same projections and mask as multi-head; only the scores change: -slope_h × |i - j| is added "
    "before the softmax. With slope 0 it is plain multi-head attention.":
        "投影和掩码与多头相同，只有分数变了：softmax 之前加上 -slope_h × |i - j|。slope 为 0 时就是普通的多头注意力。",
    "Causal linear attention (elu + 1 features)": "因果线性注意力（elu + 1 特征）",
    "Weights φ(q)·φ(k) over their row sum, no softmax: cost grows as T, not T² (Katharopoulos et al. 2020).":
        "权重是 φ(q)·φ(k) 除以所在行之和，没有 softmax：代价随 T 增长，而不是 T²（Katharopoulos 等，2020）。",
    "Same projections as multi-head; the softmax is replaced by a kernel: each weight is φ(q_i)·φ(k_j) "
    "divided by the row's sum. Because φ(q_i) factors out, the output can be computed from running sums "
    "of φ(k_j) v_jᵀ, like an RNN: time and memory grow as T instead of T².":
        "投影与多头相同，softmax 换成了核函数：每个权重是 φ(q_i)·φ(k_j) 除以该行之和。由于 φ(q_i) 可以提出来，"
        "输出可以像 RNN 一样用 φ(k_j) v_jᵀ 的累加和算出：时间和内存随 T 增长，而不是 T²。",
    "masked = scaled, with 0 where the mask says no": "masked = scaled，掩码不允许的位置为 0",
    "weights = masked / (sum of its row): positive, each row sums to 1, no softmax":
        "weights = masked / （所在行之和）：均为正，每行之和为 1，没有 softmax",
    "Sliding window (local) attention": "滑动窗口（局部）注意力",
    "Each token attends to the previous `window` tokens only (Longformer, Mistral).":
        "每个词元只关注它前面的 `window` 个词元（Longformer、Mistral）。",
    "Same projections as multi-head; only the mask differs: a band of width `window` below the diagonal. Cost and "
    "memory grow as T·window instead of T², and the KV cache never holds more than `window` tokens (without stride).":
        "投影与多头注意力相同，只有掩码不同：对角线下方宽为 `window` 的一条带。计算量和内存按 T·window 增长，而不是 T²；"
        "KV 缓存也从不保存超过 `window` 个词元（不设 stride 时）。",
    "window: how many recent tokens (itself included) each token sees": "window：每个词元能看到最近的多少个词元（包括自身）",
    "stride: also see every stride-th earlier token (0 = off)": "stride：另外每隔 stride 个位置再看一个更早的词元（0 = 关闭）",
    # ---- the Plugins tab's tables (kit/report.py)
    "plugin": "插件",
    "distribution": "发行包",
    "version": "版本",
    "source": "来源",
    "variants": "变体",
    "variant": "变体",
    "title": "标题",
    "status": "状态",
    "stage": "阶段",
    "reason": "原因",
    "check": "检查项",
    "result": "结果",
    "detail": "详情",
    "pass": "通过",
    "FAIL": "失败",
    "skipped": "已跳过",
    # ---- the conformance kit's checks (kit/checks.py and its *_checks.py)
    "options validate": "选项校验",
    "declarations": "声明",
    "build": "构建",
    "every setting the app offers": "应用提供的每种设置",
    "shapes, NaN and inf": "形状、NaN 和 inf",
    "same answer twice": "两次结果相同",
    "rows sum to 1": "每行之和为 1",
    "padding": "填充",
    "batch rows independent": "批次中各序列互不影响",
    "causal forward (perturbation)": "因果性：forward（扰动法）",
    "causal trace (perturbation)": "因果性：trace（扰动法）",
    "causal forward (autograd)": "因果性：forward（autograd）",
    "forward agrees with trace": "forward 与 trace 一致",
    "trace is the formula": "trace 符合公式",
    "cached decoding equals the recompute": "用 KV 缓存解码等于完整重算",
    "causal=False control sees the future": "causal=False 对照能看到未来",
    "√d control (uses_scaling)": "√d 开关（uses_scaling）",
    # ---- what a check says when it fails (kit/*_checks.py, kit/guard.py, kit/conformance.py)
    "resolving the default config did not fill in every option": "解析默认配置时没有填好每个选项",
    "forward gave a different answer for the same input the second time; keep no state between calls and no "
    "randomness in eval mode":
        "同样的输入，forward 第二次给出了不同的结果；调用之间不要保留状态，eval 模式下也不要有随机性",
    "some attention weights are negative; declare normalised=False if they may be":
        "有些注意力权重是负数；如果允许这样，请声明 normalised=False",
    "a row of attention weights does not sum to 1; declare normalised=False if the weights are not a distribution "
    "over keys":
        "有一行注意力权重之和不为 1；如果这些权重不是键上的概率分布，请声明 normalised=False",
    "padding query rows must have zero weights and zero output": "填充位置的查询行必须权重为零、输出为零",
    "real tokens change when padding is added; padding keys must be invisible": "加上填充后真实词元变了；填充的键必须不可见",
    "a real token may attend to no key at all; let every query see at least itself":
        "有真实词元一个键也不能关注；请让每个查询至少能看到它自己",
    "trace.scores is not q · kᵀ": "trace.scores 不等于 q · kᵀ",
    "trace.scaled is not scores / √d_head (plus bias()), as config.scaled says":
        "trace.scaled 不等于 config.scaled 所说的 scores / √d_head（加上 bias()）",
    "trace.masked differs from trace.scaled where the mask allows attention": "在掩码允许关注的地方，trace.masked 与 trace.scaled 不同",
    "trace.weights is not zero where trace.mask forbids attention": "在 trace.mask 禁止关注的地方，trace.weights 不为零",
    "trace.context is not weights · v": "trace.context 不等于 weights · v",
    "with causal=False no earlier token reacts to a later one; honour config.causal (or pick options that let a "
    "token see further)":
        "在 causal=False 时，没有哪个较早的词元对较晚的词元有反应；请遵守 config.causal（或选择能让词元看得更远的选项）",
    "config.scaled changes nothing; declare uses_scaling=False so the app disables the √d control":
        "config.scaled 没有任何作用；请声明 uses_scaling=False，让应用停用 √d 开关",
    "the options do not resolve": "选项无法解析",
    "the default config does not build": "默认配置无法构建",
    "the variant declares normalised=False": "这个变体声明了 normalised=False",
    "trace.mask must be a bool tensor (B|1, 1, T, T) with True = may attend":
        "trace.mask 必须是形状为 (B|1, 1, T, T) 的 bool 张量，True = 可以关注",
    "trace.masked holds NaN or +inf; only forbidden positions may hold -inf": "trace.masked 含有 NaN 或 +inf；只有被禁止的位置可以是 -inf",
}

TEMPLATES: list[tuple[str, str]] = [
    ("Reloaded: {variants} variants from {plugins} plugins, {errors} plugin error(s).",
     "已重新加载：来自 {plugins} 个插件的 {variants} 个变体，{errors} 个插件出错。"),
    ("failed ({stage})", "失败（{stage}）"),
    # ---- the conformance report (kit/conformance.py)
    ("{variant}: passed ({n} checks)", "{variant}：通过（{n} 项检查）"),
    ("{variant}: FAILED ({n} checks)", "{variant}：未通过（{n} 项检查）"),
    ("  - {failure}", "  - {failure}"),
    ("  ({n} more check(s) stopped at the same fault)", "  （另有 {n} 项检查停在同一个错误上）"),
    ("same fault as '{check}'", "与 '{check}' 是同一个错误"),
    ("not run: the plugin stopped answering in '{check}'", "未运行：插件在 '{check}' 中停止了响应"),
    ("{check}: {message} ({case})", "{check}：{message}（{case}）"),
    ("{check}: {message}", "{check}：{message}"),
    ("T={T}, batch {B} with padding", "T={T}，批大小 {B}，带填充"),
    ("T={T}, batch {B}", "T={T}，批大小 {B}"),
    ("{path} reads the future: token {first} changed when token {p} did",
     "{path} 读到了未来：词元 {p} 改变时，词元 {first} 也变了"),
    ("sequence {b}'s output depends on the other sequences in its batch", "序列 {b} 的输出依赖于同一批次中的其他序列"),
    ("the gradient of output {i} with respect to later input {j} is not zero", "输出 {i} 对后面的输入 {j} 的梯度不为零"),
    ("forward and trace disagree by {diff} with causal={causal}, scaled={scaled}; the app's views come from trace",
     "在 causal={causal}、scaled={scaled} 时，forward 与 trace 相差 {diff}；应用的视图来自 trace"),
    ("the variant declares uses_scaling=False, but config.scaled changes the output by {diff}",
     "这个变体声明了 uses_scaling=False，但 config.scaled 让输出改变了 {diff}"),
    ("option {name}={value} is outside its range but was accepted", "选项 {name}={value} 超出了它的范围，却被接受了"),
    ("forward returned {got}; expected {shape}", "forward 返回了 {got}；应为 {shape}"),
    ("trace.{name} has shape {got}; expected (B={B}, heads, T={T}, hd)", "trace.{name} 的形状是 {got}；应为 (B={B}, heads, T={T}, hd)"),
    ("trace.{name} has shape {got}; expected {shape}", "trace.{name} 的形状是 {got}；应为 {shape}"),
    ("trace.{name} holds {what}", "trace.{name} 含有 {what}"),
    ("{what} raised {error} at {at}", "{what} 抛出了 {error}，位置 {at}"),
    ("raised {error} at {at}", "抛出了 {error}，位置 {at}"),
    ("raised {error}", "抛出了 {error}"),
    # ---- a plugin that misbehaves in the app (serve/plugins.py)
    ("plugin '{name}' returned {problem}.", "插件 '{name}' 返回了{problem}。"),
    ("plugin '{name}' did not answer within {seconds} (it was busy with other requests).",
     "插件 '{name}' 在 {seconds} 内没有响应（它正忙于其他请求）。"),
    ("plugin '{name}' did not answer within {seconds}; the lab stopped it.", "插件 '{name}' 在 {seconds} 内没有响应；实验室已停止它。"),
    ("plugin '{name}' ran out of memory (a plugin may use {mb} MB); the lab stopped it.",
     "插件 '{name}' 内存不足（一个插件最多可用 {mb} MB）；实验室已停止它。"),
    ("plugin '{name}' ran out of memory at {at} (a plugin may use {mb} MB); the lab stopped it.",
     "插件 '{name}' 在 {at} 处内存不足（一个插件最多可用 {mb} MB）；实验室已停止它。"),
    ("plugin '{name}' failed: {error} (at {at}).", "插件 '{name}' 出错：{error}（位置 {at}）。"),
    ("plugin '{name}' failed: {error}.", "插件 '{name}' 出错：{error}。"),
    ("plugin '{name}' is busy with {n} other requests; try again in a few seconds.",
     "插件 '{name}' 正在处理另外 {n} 个请求；请过几秒再试。"),
]
