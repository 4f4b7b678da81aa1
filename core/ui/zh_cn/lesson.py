"""The Lesson tab (core/ui/lesson_tab.py, core/serve/lessons.py): its controls and the sentences it adds.

A lesson's own text is the teacher's, one file per language (core/lessons/*.zh-CN.md): never translated here.
Terms: lesson 课程, step 步, open in the lab 在实验室中打开, the class's run 全班共享的这次训练.
"""

EXACT: dict[str, str] = {
    "Lesson": "课程",
    "← Back": "← 上一步",
    "Next →": "下一步 →",
    "Open in the lab": "在实验室中打开",
    "Which lessons loaded": "加载了哪些课程",
    "Lessons loaded:": "已加载的课程：",
    "Not loaded:": "未能加载：",
    "No lesson loaded.": "没有加载任何课程。",
    "Ablation: how a head is taken out": "消融：怎样去掉一个头",
    "zero its output": "输出置零",
    "uniform weights": "均匀权重",
    "SelfAttention_v2's output": "SelfAttention_v2 的输出",
    "evaluation": "评估时",
    "training": "训练时",
    "SelfAttention_v1's output, after the copy": "复制之后 SelfAttention_v1 的输出",
}

TEMPLATES: list[tuple[str, str]] = [
    ("panel={panel} is past this chart's last panel; choose 0 to {last}",
     "panel={panel} 超出了这张图的最后一个面板；请选择 0 到 {last}"),
    ("p = {p}: {zeroed} of {links} links dropped, the others ×{scale}; the rows now sum to {lo} … {hi}, not 1 "
     "(at evaluation dropout is off and every row sums to 1)",
     "p = {p}：{links} 条连接中丢掉了 {zeroed} 条，其余乘以 {scale}；现在每行之和为 {lo} … {hi}，不是 1（评估时 dropout 关闭，每行之和都是 1）"),
    ("row={row} is past the sentence's last token; choose 0 to {last}", "row={row} 超出了句子的最后一个词元；请选择 0 到 {last}"),
    ("key={row} is past the sentence's last token; choose 0 to {last}", "key={row} 超出了句子的最后一个词元；请选择 0 到 {last}"),
    ("Measured offline at T = {T}: one call of the naive path grew memory by {naive} MiB, the fused kernel by "
     "{fused} MiB; doubling T quadruples the square.",
     "离线测得，T = {T} 时：朴素实现调用一次，内存增长 {naive} MiB，融合内核只增长 {fused} MiB；T 翻倍，这个方阵就变成四倍。"),
]
