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
    # ---- Step through (lab/steps.py)
    "Q": "Q", "K": "K", "V": "V",
    "scores": "分数", "scaled": "缩放后", "mask": "掩码", "masked": "加掩码后", "weights": "权重",
    "context": "上下文", "output": "输出",
    "scores = Q · Kᵀ": "分数 = Q · Kᵀ",
    "mask: True where a query may attend to a key": "掩码: 查询可以关注该键的地方为 True",
    "weights = softmax(masked) over each row": "权重 = 对每一行做 softmax(加掩码后)",
    "context = weights · V": "上下文 = 权重 · V",
    "output = merge(all heads' context) · W_o": "输出 = 合并(所有头的上下文) · W_o",
    "scaled (off)": "缩放（关闭）",
    # ---- Masking, Model and Transfer tables (lab/model_stats.py, lab/transfer_report.py, core/transfer.py)
    "part": "部分",
    "share": "占比",
    "total": "总计",
    "module": "模块",
    "kind": "类型",
    "shape": "形状",
    "transfer": "迁移",
    "verdict": "结论",
    "max |diff|": "最大差值 |Δ|",
    "parameter": "参数",
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
    # ---- Plugins tab statuses
    "ok": "正常",
    "(none)": "（无）",
    # ---- a lab link (ui/lab_link.py): the Copy link button (its other words: core/locales, core.i18n.t)
    "Copy link": "复制链接",
}

TEMPLATES: list[tuple[str, str]] = [
    # ---- Step through
    ("Q = x · W_q  (head {head})", "Q = x · W_q  (头 {head})"),
    ("K = x · W_k  (K/V head {kv_head})", "K = x · W_k  (K/V 头 {kv_head})"),
    ("V = x · W_v  (K/V head {kv_head})", "V = x · W_v  (K/V 头 {kv_head})"),
    ("scaled = scores / √d_head, d_head = {d_head}", "缩放后 = 分数 / √d_head, d_head = {d_head}"),
    # a plugin's formulas, read from the hooks it overrides (lab/hook_formulas.py)
    ("masked = scaled, with {fill} where the mask says no", "加掩码后 = 缩放后, 掩码说不的地方填 {fill}"),
    ("shape {shape}", "形状 {shape}"),
    ("{name}  ({shape})", "{name}  ({shape})"),
    ("`{formula}`", "`{formula}`"),
    ("**{shape}**", "**{shape}**"),
    ("{H} query heads share {Hkv} K/V heads: {groups}.", "{H} 个查询头共享 {Hkv} 个 K/V 头：{groups}。"),
    # ---- the trained tiny model
    ("Measured: {others}.", "实测：{others}。"),
    ("head {h}: {name}", "头 {h}：{name}"),
]

PHRASES: dict[str, str] = {
    "previous token": "前一个词元",
    "itself": "自身",
    "first token": "第一个词元",
    "earlier mention": "前一次出现",
    "noun about to repeat": "即将重复的名词",
    "pronoun → its noun": "代词 → 它所指的名词",
}
