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
    "zero its output": "输出置零",
    "uniform weights": "均匀权重",
    "SelfAttention_v2's output": "SelfAttention_v2 的输出",
    "evaluation": "评估时",
    "training": "训练时",
    "SelfAttention_v1's output, after the copy": "复制之后 SelfAttention_v1 的输出",
    "Loss with and without the mask": "有掩码与无掩码时的损失",
    # ---- core.serve.lesson_training: the class's training run
    "The class's run has not started yet: the app trains it after start-up, or press Train both in the Experiments "
    "tab; then come back to this step.":
        "全班共享的这次训练还没有开始：应用启动后会训练它，也可以在“实验”标签页里点“同时训练两个模型”；然后再回到这一步。",
}

TEMPLATES: list[tuple[str, str]] = [
    ("panel={panel} is past this chart's last panel; choose 0 to {last}",
     "panel={panel} 超出了这张图的最后一个面板；请选择 0 到 {last}"),
    ("Training loss without the mask {unmasked} bits per word, with it {masked}; honest loss (each word from its "
     "prefix alone) {unmasked_honest} against {masked_honest}.",
     "训练损失：不加掩码每词 {unmasked} bits，加掩码 {masked}；诚实损失（每个词只根据它的前缀来预测）：不加掩码 "
     "{unmasked_honest}，加掩码 {masked_honest}。"),
    ("Generated word by word, with the mask: '{masked}'; without: '{unmasked}'.",
     "逐词生成。加掩码：'{masked}'；不加掩码：'{unmasked}'。"),
    ("Without √d the largest weight in a row reaches {unscaled} (1 = one-hot), with it {scaled}; the gradient reaching "
     "the softmax input is {grad_unscaled} against {grad_scaled}.",
     "不除以 √d，一行中最大的权重达到 {unscaled}（1 = one-hot），除以 √d 时是 {scaled}；传到 softmax 输入的梯度是 "
     "{grad_unscaled}，除以 √d 时是 {grad_scaled}。"),
    ("The class's run is still training ({percent}% done): these are its curves so far; come back to this step in a "
     "few seconds for its figures.",
     "全班共享的这次训练还在进行（已完成 {percent}%）：这里是目前为止的曲线；过几秒再回到这一步，就能看到它的数字。"),
    ("p = {p}: {zeroed} of {links} links dropped, the others ×{scale}; the rows now sum to {lo} … {hi}, not 1 "
     "(at evaluation dropout is off and every row sums to 1)",
     "p = {p}：{links} 条连接中丢掉了 {zeroed} 条，其余乘以 {scale}；现在每行之和为 {lo} … {hi}，不是 1（评估时 dropout 关闭，每行之和都是 1）"),
    ("row={row} is past the sentence's last token; choose 0 to {last}", "row={row} 超出了句子的最后一个词元；请选择 0 到 {last}"),
    ("key={row} is past the sentence's last token; choose 0 to {last}", "key={row} 超出了句子的最后一个词元；请选择 0 到 {last}"),
    ("Measured offline at T = {T}: one call of the naive path grew memory by {naive} MiB, the fused kernel by "
     "{fused} MiB; doubling T quadruples the square.",
     "离线测得，T = {T} 时：朴素实现调用一次，内存增长 {naive} MiB，融合内核只增长 {fused} MiB；T 翻倍，这个方阵就变成四倍。"),
]
