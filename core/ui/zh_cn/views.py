"""The drawn views' words (core/render): axis labels, titles, legends and the hover templates the page fills in.

A hover template keeps its {slots} exactly: the page fills them in ({q} {i} {k} {j} {value} {extra} {head} ...).
"""

EXACT: dict[str, str] = {
    # ---- attention heatmaps and the head view (render/matrix.py)
    "key (attended to)": "键（被关注的词元）",
    "query '{q}' ({i}) → key '{k}' ({j}): weight {value}": "查询 '{q}'（{i}）→ 键 '{k}'（{j}）：权重 {value}",
    "weight": "权重",
    "{head}: '{q}' ({i}) → '{k}' ({j}): weight {value}": "{head}：'{q}'（{i}）→ '{k}'（{j}）：权重 {value}",
    "head {h}": "头 {h}",
    "head {h} · K/V head {g}": "头 {h} · K/V 头 {g}",
    "query {i} → key {j}: blocked": "查询 {i} → 键 {j}：被挡住",
    "may attend": "可以关注",
    "blocked": "被挡住",
    "layer {layer}": "第 {layer} 层",
    "Layer {layer}, {title}": "第 {layer} 层，{title}",
    # ---- the teaching tabs' matrices (render/tab_matrices.py)
    "with the causal mask": "有因果掩码",
    "output row i": "输出行 i",
    "row '{q}' ({i}), column '{k}' ({j}): {value}": "行 '{q}'（{i}），列 '{k}'（{j}）：{value}",
    "row '{q}' ({i}), {k}: {value}": "行 '{q}'（{i}），{k}：{value}",
    "key": "键",
    "dimension": "维度",
    "value": "数值",
    "{series}: {x_label} {x} → {y_label} {y}": "{series}：{x_label} {x} → {y_label} {y}",
    "{x}: {y_label} {y}": "{x}：{y_label} {y}",
    "mean max weight": "平均最大权重",
    "mean entropy (nats)": "平均熵（nats）",
    "parameters": "参数量",
    "KV cache": "KV 缓存",
    "this variant": "这个变体",
    "attention": "注意力",
    "embeddings": "嵌入",
    "mlp": "MLP",
    "norms": "归一化层",
}

TEMPLATES: list[tuple[str, str]] = [
    ("Token {position} → '{replacement}', {where}", "词元 {position} → '{replacement}'，{where}"),
    ("head {h}", "头 {h}"),
    ("head {h} · K/V head {g}", "头 {h} · K/V 头 {g}"),
    ("layer {layer}", "第 {layer} 层"),
]
