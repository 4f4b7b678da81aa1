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
    "random, seeded": "随机（固定种子）",
    "trained tiny model": "训练好的 tiny 小模型",
    "random layers you can reshape, or the trained tiny model's real heads":
        "可以随意调整形状的随机层，或训练好的 tiny 小模型中真实的头",
    "Examples": "示例",
    "Variant (from the plugin registry)": "变体（来自插件注册表）",
    "About this variant": "关于这个变体",
    "divide scores by √d_head": "分数除以 √d_head",
    "heads (n_heads; must divide d_model)": "头数（n_heads；必须整除 d_model）",
    "heads (n_heads)": "头数（n_heads）",
    "seed (weights and token vectors)": "随机种子（权重和词元向量）",
    "options (JSON, as the API takes them)": "选项（JSON，与 API 的写法相同）",
    "Check (measured on these weights)": "检查（在这组权重上实测）",
    "JSON (the /attention API output)": "JSON（/attention API 的输出）",
    "Sentence (the tiny model's words)": "句子（只用 tiny 小模型认识的词）",
    "What the opened head does (measured)": "展开的这个头在做什么（实测）",
    "Every head of its layer": "同一层的每个头",
    "JSON (the /trained_attention API output)": "JSON（/trained_attention API 的输出）",
    "JSON (the /trained_attention API output: the opened layer)": "JSON（/trained_attention API 的输出：展开的那一层）",
    "JSON: every layer and head, with each head's measured name": "JSON：每一层、每个头，以及每个头实测得到的名字",
    # ---- Step through tab
    "The sentence and settings of the **Attention** tab, one stage at a time, for the head you pick. Each matrix "
    "is shaded by its values (hover a cell for its number); rows are query tokens.":
        "沿用 **注意力** 标签页的句子和设置，对你选的头一步一步计算。每个矩阵按数值着色（鼠标悬停在格子上可看数值）；"
        "每一行是一个查询词元。",
    "Heads and band": "头与窗口带",
    "Download the whole trace (JSON)": "下载完整轨迹（JSON）",
    # ---- Masking & scaling tab
    "Head 0 of the sentence (multi-head, d_model 16, 2 heads), masked three ways.":
        "句子的第 0 个头（multi-head，d_model 16，2 个头），用三种方式加掩码。",
    "What the three show": "三种做法说明了什么",
    "### Why divide by √d: softmax sharpness against head dimension": "### 为什么要除以 √d：softmax 的尖锐程度与头维度",
    "What the curves show": "曲线说明了什么",
    # ---- Causality tab
    "Replace one token and measure how much each output row changes. With the causal mask, rows before the edit "
    "cannot move at all; switch the mask off to see the future leak into the past.":
        "替换一个词元，测量每一行输出变化了多少。有因果掩码时，被修改位置之前的行完全不会变；"
        "关掉掩码，就能看到未来泄漏进过去。",
    "position to edit (0 = first token)": "要修改的位置（0 = 第一个词元）",
    "replacement word": "替换成的词",
    "What changed": "发生了什么变化",
    "JSON (the /causality API output)": "JSON（/causality API 的输出）",
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
    "### From layer to model\nA GPT is token and position embeddings, `n_layers` blocks (LayerNorm → attention → "
    "residual,\nLayerNorm → MLP 4× → residual), a final LayerNorm and an output head tied to the token embedding.\n"
    "Only the attention layer comes from the plugin registry. The counts below come from building\nthe real model "
    "on PyTorch's *meta* device (shapes, no memory): the GPT-2 presets match the\npublished checkpoints exactly. "
    "Grouped-query attention shrinks the K/V projections and the KV\ncache; a sliding window keeps the parameters "
    "but caps how many tokens the cache must hold.":
        "### 从一层到整个模型\n一个 GPT 由词元嵌入和位置嵌入、`n_layers` 个块（LayerNorm → 注意力 → 残差，\n"
        "LayerNorm → MLP 4× → 残差）、最后一个 LayerNorm 和一个与词元嵌入共享权重的输出头组成。\n"
        "只有注意力层来自插件注册表。下面的数字来自在 PyTorch 的 `meta` 设备上真实地构建\n模型（只有形状，不占内存）："
        "GPT-2 预设与\n公开发布的检查点完全一致。分组查询注意力会缩小 K/V 投影和 KV\n缓存；滑动窗口不改变参数，"
        "但限制了缓存最多要存多少个词元。",
    "Preset": "预设",
    "Attention variant": "注意力变体",
    "n_kv_heads (GQA; must divide n_heads)": "n_kv_heads（GQA；必须整除 n_heads）",
    "window (sliding window)": "window（滑动窗口）",
    "Where the parameters are": "参数都在哪里",
    "Against plain multi-head": "与普通多头相比",
    "JSON (the /model_size API output)": "JSON（/model_size API 的输出）",
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
    "`SelfAttention_v1` keeps raw `nn.Parameter` matrices of shape (d_in, d_out); `SelfAttention_v2` uses "
    "`nn.Linear`, whose weight is stored transposed, (d_out, d_in). Copy v2 into v1 and check that both give the "
    "same output on the classic sentence *Your journey starts with one step*.":
        "`SelfAttention_v1` 直接保存形状为 (d_in, d_out) 的 `nn.Parameter` 矩阵；`SelfAttention_v2` 使用 "
        "`nn.Linear`，它的权重是转置存放的，形状为 (d_out, d_in)。把 v2 的权重复制到 v1，"
        "检查两者在经典句子 *Your journey starts with one step* 上的输出是否相同。",
    "seed (torch.manual_seed before building v2, then v1)": "随机种子（先 torch.manual_seed，再构建 v2 和 v1）",
    "mistake": "错误类型",
    "Weight shapes": "权重形状",
    "SelfAttention_v2 output": "SelfAttention_v2 的输出",
    "SelfAttention_v1 output (after the copy)": "SelfAttention_v1 的输出（复制之后）",
    "Two more transfers, checked the same way": "另外两个迁移，用同样的方法检查",
    "Verdict": "结论",
    "JSON (the /transfer API output)": "JSON（/transfer API 的输出）",
    # ---- Step through tab (its note)
    "How the sentence was read": "句子是怎样被读取的",
}

TEMPLATES: list[tuple[str, str]] = [
    # the trained model's introduction (core/ui/trained_panel.py), {n}: how many held-out sentences name a head
    ("A 2-layer GPT trained by `attention-lab train` on the lab's synthetic corpus, shipped with the app. Each head is "
     "named from a measurement on {n} held-out sentences (its mean weight on the previous token, on itself, on the "
     "earlier mention of the same noun, on the noun 它 / it refers to, ...), never from a guess. It opens on the "
     "chapter's sentence with the row of 它 lit: read where it looks. It knows only the corpus's words: pick an "
     "example or write in its style.",
     "一个 2 层 GPT，由 `attention-lab train` 在本实验室的合成语料上训练，随应用一起提供。每个头的名字都来自在 {n} "
     "个留出句子上的测量（它平均放在前一个词元、自身、同一名词前一次出现处、“它”/ it 所指的名词……上的权重），"
     "而不是猜测。打开时显示的是本章的那句话，“它”所在的行已高亮：看看它关注哪里。它只认识语料里的词："
     "请选一个示例，或按语料的风格来写。"),
]
