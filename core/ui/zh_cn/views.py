"""The drawn views' words (core/render): axis labels, titles, legends and the hover templates the page fills in.

A hover template keeps its {slots} exactly: the page fills them in ({q} {i} {k} {j} {value} {extra} {head} ...).
"""

EXACT: dict[str, str] = {
    # ---- attention heatmaps and the head view (render/matrix.py)
    "key (attended to)": "键（被关注的词元）",
    "query (attending)": "查询（发出关注的词元）",
    "query '{q}' ({i}) → key '{k}' ({j}): weight {value}, scaled score {extra}":
        "查询 '{q}'（{i}）→ 键 '{k}'（{j}）：权重 {value}，缩放后的分数 {extra}",
    "query '{q}' ({i}) → key '{k}' ({j}): weight {value}": "查询 '{q}'（{i}）→ 键 '{k}'（{j}）：权重 {value}",
    "query '{q}' ({i}) → key '{k}' ({j}): blocked by the mask, weight 0":
        "查询 '{q}'（{i}）→ 键 '{k}'（{j}）：被掩码挡住，权重为 0",
    "weight": "权重",
    "weight (each row sums to 1)": "权重（每行之和为 1）",
    "weight (not a softmax: rows need not sum to 1)": "权重（不是 softmax：每行之和不一定为 1）",
    "blocked by the mask: never attended, weight exactly 0": "被掩码挡住：从不被关注，权重恰好为 0",
    "Click a token or a cell: its row and column light up in every head. Hover a cell for its numbers.":
        "点击一个词元或一个格子：它所在的行和列会在每个头中高亮。鼠标悬停在格子上可看数值。",
    "Head view: lines from one token to the tokens it attends to": "头视图：从一个词元连到它所关注的词元",
    "Hover or click a token on the left. Line thickness = weight; one colour per head; click a head's button to "
    "switch it off or on.":
        "鼠标悬停或点击左侧的词元。线的粗细 = 权重；每个头一种颜色；点击某个头的按钮可以关闭或打开它。",
    "{head}: '{q}' ({i}) → '{k}' ({j}): weight {value}": "{head}：'{q}'（{i}）→ '{k}'（{j}）：权重 {value}",
    "head {h}": "头 {h}",
    "head {h} · K/V head {g}": "头 {h} · K/V 头 {g}",
    "Mask: which keys each query may attend to": "掩码：每个查询可以关注哪些键",
    "key position": "键的位置",
    "query position": "查询的位置",
    "query {i} → key {j}: may attend": "查询 {i} → 键 {j}：可以关注",
    "query {i} → key {j}: blocked": "查询 {i} → 键 {j}：被挡住",
    "may attend": "可以关注",
    "blocked": "被挡住",
    "blocked (weight forced to 0)": "被挡住（权重强制为 0）",
    "Every layer and head of the trained model": "训练好的模型的每一层、每个头",
    "Each square is one head's weights for this sentence. Click one to open it below.":
        "每个小方块是一个头在这个句子上的权重。点击一个，在下方展开它。",
    "layer {layer}": "第 {layer} 层",
    "Layer {layer}, {title}": "第 {layer} 层，{title}",
    # ---- the teaching tabs' matrices (render/tab_matrices.py)
    "|d out_i / d x_j|, {where}": "|d out_i / d x_j|，{where}",
    "with the causal mask": "有因果掩码",
    "WITHOUT the causal mask": "没有因果掩码",
    "input token j": "输入词元 j",
    "output row i": "输出行 i",
    "|d out_i / d x_j| (autograd)": "|d out_i / d x_j|（autograd）",
    "output row '{q}' ({i}) ← input '{k}' ({j}): |d out / d x| {value}":
        "输出行 '{q}'（{i}）← 输入 '{k}'（{j}）：|d 输出 / d 输入| {value}",
    "Click a token or a cell to highlight its row and column; hover a cell for its number.":
        "点击一个词元或一个格子，高亮它所在的行和列；鼠标悬停在格子上可看数值。",
    "1. -inf, then softmax": "1. 先填 -inf，再 softmax",
    "2. softmax, zero the future, renormalise": "2. 先 softmax，把未来清零，再重新归一化",
    "3. WRONG: fill 0, then softmax": "3. 错误：填 0，再 softmax",
    "the future: weight exactly 0 (ways 1 and 2)": "未来：权重恰好为 0（做法 1 和 2）",
    "row '{q}' ({i}), column '{k}' ({j}): {value}": "行 '{q}'（{i}），列 '{k}'（{j}）：{value}",
    "row '{q}' ({i}), {k}: {value}": "行 '{q}'（{i}），{k}：{value}",
    "row '{q}' ({i}), column '{k}' ({j}): -∞ (blocked by the mask)": "行 '{q}'（{i}），列 '{k}'（{j}）：-∞（被掩码挡住）",
    "key": "键",
    "dimension": "维度",
    "query token": "查询词元",
    "value": "数值",
    "-∞: blocked by the mask": "-∞：被掩码挡住",
    # ---- charts (render/charts.py, render/lab_charts.py)
    "{series}: {x_label} {x} → {y_label} {y}": "{series}：{x_label} {x} → {y_label} {y}",
    "{x}: {y_label} {y}": "{x}：{y_label} {y}",
    "output row (token)": "输出行（词元）",
    "max |output change|": "输出的最大变化 |Δ输出|",
    "max |change|": "最大变化 |Δ|",
    "the edited position": "被修改的位置",
    "every other row": "其他各行",
    "Largest weight in a row (1 = one-hot)": "一行中最大的权重（1 = one-hot）",
    "mean max weight": "平均最大权重",
    "mean entropy (nats)": "平均熵（nats）",
    "head dimension d (log scale)": "头维度 d（对数刻度）",
    "unscaled: q·k": "不缩放：q·k",
    "scaled: q·k / √d": "缩放：q·k / √d",
    "uniform row": "均匀分布的行",
    "part of the model": "模型的部分",
    "parameters (millions)": "参数量（百万）",
    "parameters": "参数量",
    "KV cache": "KV 缓存",
    "multi-head (reference)": "multi-head（参照）",
    "this variant": "这个变体",
    "attention": "注意力",
    "embeddings": "嵌入",
    "mlp": "MLP",
    "norms": "归一化层",
}

TEMPLATES: list[tuple[str, str]] = [
    ("Token {position} → '{replacement}', {where}", "词元 {position} → '{replacement}'，{where}"),
    ("Entropy of a row (uniform = {uniform} nats)", "一行的熵（均匀分布 = {uniform} nats）"),
    ("Where the parameters are: {preset} with {variant}", "参数都在哪里：{preset} 配 {variant}"),
    ("KV cache at full context (T = {T}, fp16, one sequence)", "满上下文时的 KV 缓存（T = {T}，fp16，单个序列）"),
    ("head {h}", "头 {h}"),
    ("head {h} · K/V head {g}", "头 {h} · K/V 头 {g}"),
    ("layer {layer}", "第 {layer} 层"),
    ("|d out_i / d x_j|, {where}", "|d out_i / d x_j|，{where}"),
]
