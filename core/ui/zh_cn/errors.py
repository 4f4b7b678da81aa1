"""The one-sentence errors a student meets (ConfigError and the app's own), in Chinese.

A field and its value ({name}={value}) and a quoted value stay as the reader sent them (core.ui.i18n)."""

EXACT: dict[str, str] = {
    # ---- the sentence (lab/session.py, lab/text.py, lab/causality.py, lab/predict.py)
    "The sentence is empty; type a few words.": "句子是空的；请输入几个词。",
    "The sentence has no words, punctuation or emoji to attend over; type a few words.":
        "这个句子里没有可以关注的词、标点或表情符号；请输入几个词。",
    "the sentence has no tokens; type at least one word": "这个句子没有词元；请至少输入一个词。",
    "sentence must be text": "句子必须是文本",
    "The replacement word is empty; type a word to put at that position.": "替换词是空的；请输入一个要放到该位置的词。",
    "type a sentence first, for example: the fox that the child saw was hungry , so the fox slept .":
        "请先输入一个句子，例如：the fox that the child saw was hungry , so the fox slept .",
    "type a sentence first": "请先输入一个句子",
    "options values must be numbers, true/false or text": "选项的值必须是数字、true/false 或文本",
    # ---- the app (ui/common.py, ui/inputs.py, serve/*)
    "this view cannot be exported as a PNG": "这个视图不能导出为 PNG",
    "ablate must be a JSON list of [layer, head] pairs, like [[0, 1], [5, 3]]":
        "ablate 必须是 [层, 头] 对组成的 JSON 列表，例如 [[0, 1], [5, 3]]",
    "the sentence needs at least two tokens: the loss is each token predicted from the ones before it":
        "这个句子至少需要两个词元：损失是用前面的词元预测每个词元得到的",
}

TEMPLATES: list[tuple[str, str]] = [
    # ---- a real model broken live (lab/broken_model.py)
    ("ablate names layer {layer} head {head}, but the model has layers 0-{L} and heads 0-{H}",
     "ablate 指定了第 {layer} 层第 {head} 个头，但这个模型只有第 0-{L} 层、第 0-{H} 个头"),
    # ---- a GPT-2 named by a Hub id (gpt/hub.py)
    ("'{name}' is neither a folder nor a Hugging Face model id (like openai-community/gpt2)",
     "'{name}' 既不是文件夹，也不是 Hugging Face 模型名称（例如 openai-community/gpt2）"),
    ("'{id}' is not in the local Hugging Face cache and downloads are off (HF_HUB_OFFLINE=1): fetch it once with "
     "`{command}` (on a Space: list it under preload_from_hub in README.md), or unset HF_HUB_OFFLINE",
     "本地的 Hugging Face 缓存里没有 '{id}'，而且下载已关闭（HF_HUB_OFFLINE=1）：请用 `{command}` 下载一次"
     "（在 Space 上：把它列在 README.md 的 preload_from_hub 里），或者取消 HF_HUB_OFFLINE"),
    ("'{id}' could not be fetched from the Hugging Face Hub; check the id and the network",
     "无法从 Hugging Face Hub 获取 '{id}'；请检查名称和网络"),
    # ---- numbers, switches, texts and choices (core/config.py, ui/inputs.py)
    ("{name}={value} does not divide {other}={total}; choose {choices}", "{name}={value} 不能整除 {other}={total}；可选 {choices}"),
    ("{name}={value} is too small; choose {low} or more", "{name}={value} 太小了；请选择 {low} 或更大的数"),
    ("{name}={value} is out of range; choose {low} to {high}", "{name}={value} 超出范围；请选择 {low} 到 {high}"),
    ("{name}={value} is out of range; choose {low} or more", "{name}={value} 超出范围；请选择 {low} 或更大的数"),
    ("{name}={value} is out of range; choose {high} or less", "{name}={value} 超出范围；请选择 {high} 或更小的数"),
    ("{name}={value} must be a whole number", "{name}={value} 必须是整数"),
    ("{name}={value} must be a number", "{name}={value} 必须是数字"),
    ("{name}={value} must be true or false", "{name}={value} 必须是 true 或 false"),
    ("{name}={value} must be text", "{name}={value} 必须是文本"),
    ("{name}={value} is not one of the choices; choose {choices} or another listed choice",
     "{name}={value} 不是可选项之一；请选择 {choices} 或列表中的其他选项"),
    ("{name}={value} is not one of the choices; choose {choices}", "{name}={value} 不是可选项之一；请选择 {choices}"),
    ("{name}={value} is not one of the {count} examples; choose one from the list",
     "{name}={value} 不是 {count} 个示例之一；请从列表中选一个"),
    ("{name} holds an invalid character (a lone surrogate, U+{code}) at position {at}; remove it",
     "{name} 中有一个无效字符（孤立的代理项，U+{code}），位置 {at}；请删除它"),
    # ---- options (core/ui/lab_link.py's own sentence; core/config.py's are in core/locales)
    ("unknown option '{name}'; this variant takes no options", "未知选项 '{name}'；这个变体不接受任何选项"),
    ("options is longer than {n} characters; an options object names a few options, such as {example}.",
     "选项超过了 {n} 个字符；一个 options 对象只列出几个选项，例如 {example}。"),
    # ---- variants (core/registry.py, lab/session.py)
    ("variant is longer than {n} characters; type a variant's name.", "变体名超过了 {n} 个字符；请输入一个变体的名字。"),
    # ---- each tab's own checks
    ("position={pos} is outside the sentence; choose 0 to {last}", "position={pos} 超出了句子范围；请选择 0 到 {last}"),
    ("position={pos} is outside the sentence; choose 0 to {last} (or -1 for the last token)",
     "position={pos} 超出了句子范围；请选择 0 到 {last}（或用 -1 表示最后一个词元）"),
    ("replacement is longer than {n} characters; type one word.", "替换词超过了 {n} 个字符；请只输入一个词。"),
    ("head={head} does not exist; choose 0 to {last}", "head={head} 不存在；请选择 0 到 {last}"),
    ("the sentence has {n} tokens but the tiny model reads at most {limit}; shorten it",
     "这个句子有 {n} 个词元，但 tiny 小模型最多只读 {limit} 个；请缩短它"),
    ("the tiny model has layers 0-{layer} and heads 0-{head}", "tiny 小模型只有第 0-{layer} 层和第 0-{head} 个头"),
    ("steps={steps} is out of range; choose 10 to {most}", "steps={steps} 超出范围；请选择 10 到 {most}"),
    ("preset={preset} is unknown; choose one of: {known}", "未知的预设 preset={preset}；请从这些中选一个：{known}"),
    ("mistake={mistake} is not known; choose {known}", "未知的错误类型 mistake={mistake}；请选择 {known}"),
    ("cannot copy {name}: nn.Linear stores its weight as (d_out, d_in) = ({d_out}, {d_in}) but SelfAttention_v1 holds "
     "(d_in, d_out) = {shape}; copy weight.T, not weight",
     "无法复制 {name}：nn.Linear 按 (d_out, d_in) = ({d_out}, {d_in}) 存放权重，而 SelfAttention_v1 存的是 "
     "(d_in, d_out) = {shape}；要复制转置后的 weight.T，而不是原样复制"),
    ("the outputs have different shapes, {a} and {b}", "两个输出的形状不同：{a} 和 {b}"),
    ("{name}={value} must be a number, 0 (always the likeliest word) or more",
     "{name}={value} 必须是一个大于或等于 0 的数（0 表示总是选最可能的词）"),
    ("{name}={value} must be a whole number from 1 to {most}", "{name}={value} 必须是 1 到 {most} 之间的整数"),
]

PHRASES: dict[str, str] = {
    "sentence": "句子",
    "replacement": "替换词",
    "variant": "变体",
    # what core/proc/sandbox.py says of a child process, quoted in others' sentences
    "did not answer within": "没有在以下时限内响应：",
    "ran out of memory": "内存不足",
}
