"""The Mistakes & interventions tab (core/ui/chapter_tab.py, core/serve/chapter.py, core/render/chapter.py, texts
from core/lab/failure_modes.py and core/lab/interventions.py): spot-the-bug cards and what each head is worth.

A card's code lines are gr.Code (never translated), and a check quotes what torch raised as a code span (kept as
torch said it). Terms: ablation 消融, held-out 留出, intervention 干预, spot the bug 找错误.
"""

EXACT: dict[str, str] = {
    # ---- the tab's static texts
    "Mistakes & interventions": "错误与干预",
    "## Spot the bug": "## 找错误",
    "The chapter's minimal causal attention, run just now on the first five words of its sentence (合同 违约金 过高 "
    "， 它), once as written and once with ONE line changed. Each card shows the wrong line, what it does to the "
    "weights (or the error torch raises), the one-line fix, and the check that catches it: run on both versions "
    "every time the card is built.":
        "本章的最小因果注意力，刚刚在本章那句话的前五个词（合同 违约金 过高 ， 它）上运行了两次：一次按原样，"
        "一次只改动其中一行。每张卡片给出错误的那一行、它对权重造成的影响（或 torch 报出的错误）、只改一行的修正，"
        "以及能发现这个错误的检查：每次生成卡片时，检查都会在两个版本上各运行一遍。",
    "The wrong line": "错误的那一行",
    "The fix (one line)": "修正（只改一行）",
    "What torch says when the wrong line runs": "运行错误的那一行时 torch 的报错（原文）",
    "The check that catches it": "能发现这个错误的检查",
    "## Do not mythologise attention weights": "## 不要神化注意力权重",
    "The trained tiny model's eight heads. Left: how much weight each head puts on the pattern it is named after "
    "(query → key matching, measured on held-out text). Then: how much worse the model predicts held-out text when "
    "that head is taken out. A large weight is not a large effect: read the two side by side. The marked head is "
    "the headline's striking one.":
        "训练好的 tiny 小模型的八个头。左边：每个头在给它命名的那种模式上放了多少权重（查询 → 键 的匹配，"
        "在留出文本上测得）。接着：去掉这个头后，模型对留出文本的预测变差了多少。权重大不等于作用大："
        "把两者并排对照着读。标出的那个头，就是上方结论里那个“引人注目”的头。",
    "Sentence for the next-word prediction (the tiny model's words)": "用来预测下一个词的句子（只用 tiny 小模型认识的词）",
    "Ablation: how a head is taken out": "消融：怎样去掉一个头",
    "zero its output (the head adds nothing)": "把它的输出置零（这个头什么也不贡献）",
    "uniform weights over the keys it may see (it still reads, but looks nowhere in particular)":
        "在它能看到的键上使用均匀权重（它仍然读取，但不特别关注任何位置）",
    "The model's next word after your sentence": "模型在你的句子之后预测的下一个词",
    "JSON (the /failure_modes API output)": "JSON（/failure_modes API 的输出）",
    "JSON (the /interventions API output)": "JSON（/interventions API 的输出）",
    # ---- the cards (lab/failure_modes.py): titles, what each wrong line does, the checks
    "Softmax over the wrong dimension": "在错误的维度上做 softmax",
    "0 instead of -inf": "用 0 代替 -inf",
    "A mask of the wrong dtype": "掩码的 dtype 错了",
    "A mask on the wrong device": "掩码放在了错误的设备上",
    "Fully masked padding rows give NaN": "被完全遮住的填充行得到 NaN",
    "torch.ones makes floats; ~ (logical not) and masked_fill need a bool mask, so the call stops with an error "
    "before any weight exists. The fix is one argument: dtype=torch.bool.":
        "torch.ones 生成的是浮点数；~（逻辑非）和 masked_fill 需要布尔掩码，所以还没算出任何权重，调用就报错停下了。"
        "修正只需加一个参数：dtype=torch.bool。",
    "The fix: make the mask where the scores are, device=q.device.": "修正：在分数所在的设备上创建掩码，device=q.device。",
    "Run just now on this machine's GPU: q, k, v on cuda, the mask made on the CPU.":
        "刚刚在这台机器的 GPU 上运行：q、k、v 在 cuda 上，掩码在 CPU 上创建。",
    "This machine has no GPU, so the lab meets the same mismatch another way: q, k, v stay on the CPU and the mask "
    "is made on PyTorch's meta device (a device without data), standing in for a second device. The message above "
    "is what torch said just now; on a GPU it names cuda:0 and cpu instead.":
        "这台机器没有 GPU，所以实验室用另一种方式制造同样的不匹配：q、k、v 留在 CPU 上，掩码则创建在 PyTorch 的 "
        "meta 设备（一种不存放数据的设备）上，充当第二个设备。上面的报错就是 torch 刚刚给出的原话；在 GPU 上，"
        "它提到的会是 cuda:0 和 cpu。",
    "each row sums to 1 and changing a future token leaves earlier outputs unchanged":
        "每行之和为 1，并且改变一个未来的词元不会改变前面的输出",
    "no weight above the diagonal": "对角线以上没有权重",
    "the attention runs and its weights are causal": "注意力能运行，并且权重是因果的",
    "no NaN in weights, outputs or gradients, and real tokens get what they get without padding":
        "权重、输出和梯度中都没有 NaN，并且真实词元得到的结果与不加填充时相同",
    "runs; weights causal, rows sum to 1": "能运行；权重是因果的，每行之和为 1",
    "runs, but the weights are not causal": "能运行，但权重不是因果的",
    # ---- a card's weights (render/chapter.py)
    "with the wrong line": "用错误的那一行",
    "with the fix": "用修正后的代码",
    "query '{q}' ({i}) → key '{k}' ({j}): masked (-inf), weight 0": "查询 '{q}'（{i}）→ 键 '{k}'（{j}）：被遮住（-inf），权重为 0",
    "masked with -inf: weight exactly 0": "用 -inf 遮住：权重恰好为 0",
    "NaN: a row with nothing to see (0 / 0)": "NaN：这一行什么都看不到（0 / 0）",
    # ---- the interventions: headline, chart, table (serve/chapter.py, render/chapter.py)
    "A head can look striking and matter little.": "一个头可能看起来很引人注目，实际作用却不大。",
    "With this ablation the heads that look most focused are also the ones that cost most to remove.":
        "在这种消融下，看起来最集中的头，恰好也是去掉后代价最大的头。",
    "zeroing its output": "把它的输出置零",
    "making its weights uniform": "把它的权重变成均匀分布",
    "Mean weight on its pattern": "在它的模式上的平均权重",
    "weight (0 to 1)": "权重（0 到 1）",
    "Held-out loss increase when removed": "去掉后留出损失的增加",
    "bits per word": "每词 bits",
    "Increase on the word after 它 可能 / it may": "在“它 可能 / it may”之后那个词上的增加",
    "mean weight": "平均权重",
    "loss increase": "损失增加",
    "named (held-out)": "名字（在留出文本上测得）",
    "mean weight on its pattern": "在它的模式上的平均权重",
    "held-out loss increase (bits/word)": "留出损失的增加（bits/词）",
    "increase on the word after 它 可能 / it may (bits)": "在“它 可能 / it may”之后那个词上的增加（bits）",
    "your sentence: top next word without it": "你的句子：去掉它之后最可能的下一个词",
    "your sentence: change in the prediction (total variation)": "你的句子：预测的变化（总变差）",
}

TEMPLATES: list[tuple[str, str]] = [
    # ---- the cards
    ("### {title}", "### {title}"),
    ("Softmax over dim=-2 normalises each key's column instead of each query's row: row sums become {sums} instead "
     "of 1. No weight sits above the diagonal, but every column's denominator adds up later queries, so a row "
     "changes when a future token does.",
     "在 dim=-2 上做 softmax，归一化的是每个键所在的列，而不是每个查询所在的行：各行之和变成了 {sums}，而不是 1。"
     "对角线以上没有权重，但每一列的分母都把后面的查询加了进来，所以未来的词元一变，前面的行也跟着变。"),
    ("exp(0) = 1, so the masked future still gets weight: row 0 puts {first} of its weight on tokens after it, and "
     "every row but the last leaks (up to {worst}).",
     "exp(0) = 1，所以被遮住的未来仍然得到权重：第 0 行把 {first} 的权重放在它之后的词元上，除最后一行外，"
     "每一行都有泄漏（最多 {worst}）。"),
    ("The mask lives on {other}, the scores on {device}: masked_fill cannot mix them and stops with an error.",
     "掩码在 {other} 上，分数在 {device} 上：masked_fill 不能混用两个设备，于是报错停下。"),
    ("Left padding: query rows {rows} (padding) may see only padding, so every score in the row is -inf and softmax "
     "divides 0 by 0: NaN, in the weights and in the output. A row with nothing to see may see everything instead, "
     "and its output is zeroed afterwards.",
     "左侧填充：查询行 {rows}（填充位置）只能看到填充，所以这一行的每个分数都是 -inf，softmax 算的是 0 除以 0："
     "权重和输出里都出现了 NaN。修正后，什么都看不到的行改为可以看到所有位置，随后再把它的输出置零。"),
    ("The check: {check}.", "检查：{check}。"),
    ("On the wrong line it passes: {detail}", "在错误的那一行上，检查通过：{detail}"),
    ("On the wrong line it FAILS: it raises `{error}`", "在错误的那一行上，检查不通过：它抛出 `{error}`"),
    ("On the wrong line it FAILS: {detail}", "在错误的那一行上，检查不通过：{detail}"),
    ("On the fix it passes: {detail}", "在修正后的代码上，检查通过：{detail}"),
    ("On the fix it FAILS: it raises `{error}`", "在修正后的代码上，检查不通过：它抛出 `{error}`"),
    ("On the fix it FAILS: {detail}", "在修正后的代码上，检查不通过：{detail}"),
    ("rows off 1 by up to {error}; changing the last token moved earlier outputs by up to {moved}",
     "各行之和与 1 最多相差 {error}；改变最后一个词元后，前面的输出最多变化了 {moved}"),
    ("largest weight a row puts on the future: {future}", "一行放在未来上的最大权重：{future}"),
    ("NaN values in weights, output and gradient: {nan}; real tokens vs the same sentence unpadded: max |diff| {diff}",
     "权重、输出和梯度中 NaN 的个数：{nan}；真实词元与不加填充的同一句子相比：最大差值 |Δ| {diff}"),
    # ---- the interventions
    ("Layer {s_layer} head {s_head} puts {s_weight} of its weight on {s_pattern}, yet {ablation} adds only {s_loss} "
     "bits per word to the held-out loss ({s_may} on the word after 它 可能 / it may); layer {p_layer} head {p_head} "
     "puts at most {p_weight} on any pattern, and the same ablation adds {p_loss} bits per word.",
     "第 {s_layer} 层第 {s_head} 个头把 {s_weight} 的权重放在“{s_pattern}”上，可是{ablation}只让留出损失每词增加 "
     "{s_loss} bits（在“它 可能 / it may”之后那个词上增加 {s_may}）；第 {p_layer} 层第 {p_head} 个头在任何模式上的"
     "权重最多只有 {p_weight}，同样的消融却让损失每词增加 {p_loss} bits。"),
    ("Measured once on {n_words} next words of {n_sentences} held-out sentences (never seen in training), {n_may} of "
     "them the word after 它 可能 / it may; with every head in place the model needs {base} bits per word ({base_may} "
     "bits on the word after 可能 / may).",
     "在 {n_sentences} 个留出句子（训练时从未见过）中的 {n_words} 个下一个词上测量一次，其中 {n_may} 个是"
     "“它 可能 / it may”之后的那个词；所有头都在时，模型每词需要 {base} bits（在“可能 / may”之后那个词上需要 "
     "{base_may} bits）。"),
    ("Next word after \"{last}\" with every head: {top}.", "所有头都在时，“{last}”之后的下一个词：{top}。"),
    ("layer {layer} head {head}", "第 {layer} 层 头 {head}"),
    ("{weight} ({pattern})", "{weight}（{pattern}）"),
]

KEEP: set[str] = {"exp", "dtype", "meta", "cpu", "nan"}
