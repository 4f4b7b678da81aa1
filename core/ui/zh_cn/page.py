"""The page's static texts: tab titles, labels, help, buttons and each tab's Markdown."""

EXACT: dict[str, str] = {
    # ---- the page and its tabs
    "Attention Lab": "注意力实验室",
    "# Attention Lab\nThe attention layer of GPT-style models, one stage at a time.":
        "# 注意力实验室\nGPT 类模型的注意力层，一步一步看清楚。",
    "Attention": "注意力",
    "Step through": "逐步计算",
    "Masking & scaling": "掩码与缩放",
    "Causality": "因果性",
    "Model": "模型",
    "Weight transfer": "权重迁移",
    "Plugins": "插件",
    # ---- shared controls
    "For scripts (API)": "供脚本使用（API）",
    "PNG for a worksheet": "导出 PNG（用于练习纸）",
    "PNG of this view": "此视图的 PNG",
    "Not redrawn": "未重新绘制",
    "Something went wrong computing this view; try other settings.": "计算这个视图时出错了；请换一组设置再试。",
    "Sentence": "句子",
    "Notes": "说明",
    "Variant": "变体",
    "seed": "随机种子",
    "head": "头",
    "layer": "层",
    "causal mask": "因果掩码",
    "Run": "运行",
    "Check": "检查",
    # ---- Attention tab
    "Weights": "权重",
    "random, seeded": "随机（固定种子）",
    "trained tiny model": "训练好的 tiny 小模型",
    "random layers you can reshape, or the trained tiny model's real heads":
        "可以随意调整形状的随机层，或训练好的 tiny 小模型中真实的头",
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
    # ---- the Real model tab
    "√d scaling": "√d 缩放",
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
    # ---- Plugins tab
    "### Plugins\nEvery variant in this lab, built-in or not, is a pluggy plugin. A plugin that fails to load is\n"
    "listed below and skipped; the rest of the lab runs without it. **Check** runs the conformance kit\non the real "
    "module, each check in its own process with a time limit: shapes at every length, batch\nand padding, NaN and "
    "inf, weights edited in place, rows that sum to 1, causality by perturbing later\ntokens and by autograd, "
    "forward against trace for every causal/scaled setting, and the `causal=False` control.\n**Reload** picks up "
    "plugins installed since the app started (`attention-lab install -e PATH`); a plugin\nwhose code changed needs "
    "a restart. Write your own: `attention-lab new-plugin NAME` and `docs/plugins.md`.":
        "### 插件\n本实验室里的每个变体，无论是否内置，都是一个 pluggy 插件。加载失败的插件会\n"
        "列在下面并被跳过；实验室的其余部分照常运行。**检查** 会在真实的模块上运行一致性检查，\n"
        "每项检查在各自的进程中运行，并有时间限制：各种长度下的形状、批次\n与填充、NaN 和 inf、"
        "原地修改权重、每行之和为 1、通过扰动后面的\n词元和通过 autograd 检验因果性、在每种 `causal`/`scaled` "
        "设置下对比 forward 与 trace，以及 `causal=False` 对照。\n**重新加载** 会发现应用启动后新安装的插件"
        "（`attention-lab install -e PATH`）；代码有改动的插件\n需要重启。自己写一个：`attention-lab new-plugin NAME`，"
        "并参阅 `docs/plugins.md`。",
    "registry": "注册表",
    "Reload plugins": "重新加载插件",
    "Loaded plugins": "已加载的插件",
    "Variants and where they come from": "变体及其来源",
    "Plugins that failed to load (skipped)": "加载失败的插件（已跳过）",
    "No plugin failed to load.": "没有插件加载失败。",
    "variant to check": "要检查的变体",
    "conformance report": "一致性检查报告",
    "every check, in order": "每项检查（按顺序）",
    "plugins switched off in this run (they kept failing)": "本次运行中已停用的插件（它们反复出错）",
    "None: every plugin is answering.": "无：每个插件都在正常响应。",
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
