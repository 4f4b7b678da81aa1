"""The page's static texts: tab titles, labels, help, buttons and each tab's Markdown."""

EXACT: dict[str, str] = {
    # ---- the page and its tabs
    "Attention": "注意力",
    "Step through": "逐步计算",
    "Causality": "因果性",
    "Model": "模型",
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
    # ---- Attention tab
    "Weights": "权重",
    "trained tiny model": "训练好的 tiny 小模型",
    "divide scores by √d_head": "分数除以 √d_head",
    "heads (n_heads; must divide d_model)": "头数（n_heads；必须整除 d_model）",
    "seed (weights and token vectors)": "随机种子（权重和词元向量）",
    "JSON (the /trained_attention API output)": "JSON（/trained_attention API 的输出）",
    "√d scaling": "√d 缩放",
    # ---- Model tab
    "Preset": "预设",
    "n_kv_heads (GQA; must divide n_heads)": "n_kv_heads（GQA；必须整除 n_heads）",
    "window (sliding window)": "window（滑动窗口）",
    # ---- Weight transfer tab
    "mistake": "错误类型",
}

TEMPLATES: list[tuple[str, str]] = []
