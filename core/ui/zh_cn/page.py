"""The page's static texts: tab titles, labels, help, buttons and each tab's Markdown."""

EXACT: dict[str, str] = {
    # ---- the page and its tabs
    "Attention": "注意力",
    "Step through": "逐步计算",
    "Causality": "因果性",
    "Experiments": "实验",
    "Model": "模型",
    "Cost": "计算代价",
    "Weight transfer": "权重迁移",
    # ---- shared controls
    "PNG for a worksheet": "导出 PNG（用于练习纸）",
    "PNG of this view": "此视图的 PNG",
    "Sentence": "句子",
    "Notes": "说明",
    "Variant": "变体",
    "seed": "随机种子",
    "head": "头",
    "layer": "层",
    "causal mask": "因果掩码",
    "Run": "运行",
    "Stop": "停止",
    # ---- Attention tab
    "Weights": "权重",
    "trained tiny model": "训练好的 tiny 小模型",
    "Examples": "示例",
    "divide scores by √d_head": "分数除以 √d_head",
    "heads (n_heads; must divide d_model)": "头数（n_heads；必须整除 d_model）",
    "seed (weights and token vectors)": "随机种子（权重和词元向量）",
    "JSON (the /trained_attention API output)": "JSON（/trained_attention API 的输出）",
    # ---- Experiments tab
    "Causal mask": "因果掩码",
    "√d scaling": "√d 缩放",
    "training steps": "训练步数",
    "Train both": "同时训练两个模型",
    "### (a) Train with and without the causal mask\nTwo identical one-layer GPTs learn to predict the next word of "
    "the synthetic corpus, on the same\nbatches. One has the causal mask; the other lets every position see the "
    "whole window,\n**including the word it is asked to predict**. Its training loss falls toward 0: it peeks.\n"
    "The dashed lines are the **honest loss**: each position predicted from its prefix alone, as\ngeneration must. "
    "The samples below are generated one word at a time, where nobody can peek.":
        "### (a) 有因果掩码与没有因果掩码的训练\n两个完全相同的单层 GPT 在同样的批次上学习预测合成语料的下一个词。\n"
        "一个带因果掩码；另一个让每个位置都能看到整个窗口，\n**包括它要预测的那个词**。它的训练损失会降到接近 0：它在偷看。\n"
        "虚线是 **诚实损失**：每个位置只根据它前面的内容来预测，\n就像生成时必须做的那样。下面的样本是一次生成一个词，"
        "这时谁也没法偷看。",
    "Sample from the model trained WITH the mask": "带掩码训练的模型生成的样本",
    "Sample from the model trained WITHOUT the mask": "不带掩码训练的模型生成的样本",
    "JSON (the /mask_experiment API output)": "JSON（/mask_experiment API 的输出）",
    "### (b) With and without dividing by √d\nTwo one-layer, one-head models with a wide head (`head_dim` = 256) "
    "start from unit-variance\nqueries and keys. Their dot products then have variance ≈ d: without the division "
    "the softmax\nis nearly one-hot from the first step (max weight ≈ 1, entropy ≈ 0), and the gradient that\n"
    "reaches its input is small, so attention learns slowly. Scaled scores keep variance ≈ 1.":
        "### (b) 除以 √d 与不除以 √d\n两个单层、单头的模型，头很宽（`head_dim` = 256），查询和键一开始的方差都是 1。\n"
        "它们的点积方差约为 d：不做除法时，softmax\n从第一步起就几乎是 one-hot（最大权重 ≈ 1，熵 ≈ 0），"
        "传到它输入的梯度\n很小，所以注意力学得很慢。缩放后的分数方差保持在 ≈ 1。",
    "JSON (the /scale_experiment API output)": "JSON（/scale_experiment API 的输出）",
    # ---- Model tab
    "Preset": "预设",
    "n_kv_heads (GQA; must divide n_heads)": "n_kv_heads（GQA；必须整除 n_heads）",
    "window (sliding window)": "window（滑动窗口）",
    # ---- Cost tab
    "### The square that grows\nNaive attention writes down every score: an **(H, T, T)** square that quadruples "
    "each time the\nsentence doubles. Fused attention (`F.scaled_dot_product_attention`) computes the same numbers\n"
    "in tiles and never keeps the square. A sliding window only computes a **band** of width\n`window`: work and "
    "memory grow as T·window. Measure it here for short sentences; the table and\nplot below were measured up to "
    "T = 8192 with `attention-lab bench --flex`.":
        "### 不断变大的方阵\n朴素注意力会把每个分数都写下来：一个 **(H, T, T)** 方阵，句子长度每翻一倍，\n"
        "它就变成四倍。融合注意力（`F.scaled_dot_product_attention`）分块计算出同样的数字，\n"
        "从不保存整个方阵。滑动窗口只计算宽度为 `window` 的一条 **带**：\n计算量和内存按 T·window 增长。"
        "在这里可以对短句子实测；下面的表格和\n图是用 `attention-lab bench --flex` 一直测到 T = 8192 的结果。",
    "longest T to measure now": "现在实测的最大 T",
    "window (sliding-window width)": "window（滑动窗口宽度）",
    "Measure now": "现在实测",
    "Measured now": "刚刚实测的结果",
    "### Measured offline, T = 256 … 8192 (B = 1, d_model 128, 4 heads, fp32)":
        "### 离线实测，T = 256 … 8192（B = 1，d_model 128，4 个头，fp32）",
    "No saved benchmark ships with this copy; run `attention-lab bench --out core/assets`.":
        "这份副本没有附带保存的基准测试结果；请运行 `attention-lab bench --out core/assets`。",
    "Saved benchmark: time and peak memory growth per call": "保存的基准测试：每次调用的耗时和峰值内存增长",
    "How it was measured: B=1, d_model=128, 4 heads (head_dim 32), fp32, no grad, torch threads as configured. "
    "Time: median of the reps, each rep runs the row then raw causal SDPA on the same q/k/v shapes, so 'x sdpa' is "
    "a ratio from the same seconds of the same process. Memory: peak RSS growth of one call after a warm-up (VmHWM "
    "reset via /proc/self/clear_refs, MALLOC_MMAP_THRESHOLD_ fixed so freed tensors leave the process); one "
    "process per row.":
        "测量方法：B=1，d_model=128，4 个头（head_dim 32），fp32，不计算梯度，torch 线程数按配置。"
        "耗时：多次重复的中位数，每次重复先运行该行，再在相同形状的 q/k/v 上运行原始的因果 SDPA，"
        "所以 'x sdpa' 是同一进程、同一段时间里测得的比值。内存：预热之后一次调用的峰值 RSS 增长"
        "（通过 `/proc/self/clear_refs` 重置 VmHWM，并固定 MALLOC_MMAP_THRESHOLD_，让释放的张量离开进程）；"
        "每一行一个进程。",
    # ---- Weight transfer tab
    "mistake": "错误类型",
}

TEMPLATES: list[tuple[str, str]] = []
