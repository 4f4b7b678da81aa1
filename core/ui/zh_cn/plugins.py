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
    "build": "构建",
    "rows sum to 1": "每行之和为 1",
    "padding": "填充",
}

TEMPLATES: list[tuple[str, str]] = [
    # ---- what core/proc/sandbox.py says of a child that raised (quoted in the kit's report and a plugin's fault)
    ("raised {error} at {at}", "抛出了 {error}，位置 {at}"),
    ("raised {error}", "抛出了 {error}"),
]
