"""Stop words: the words that say little about what a text is about, zh and en.

Each consumer weighs them for its own purpose, so each has its own list here: what search
drops from a query (:data:`SEARCH`), what the hashing embedder weighs down
(:data:`EMBEDDING`, :data:`EMBEDDING_CHARACTERS`), and what a summary never takes for a
keyword (:data:`KEYWORDS`, :data:`SMALL_TALK`, :data:`CHINESE_FUNCTION_WORDS`).
"""

from __future__ import annotations

from memlane.lang.script import word_set

SEARCH = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "did",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "he",
        "her",
        "his",
        "how",
        "i",
        "in",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "she",
        "so",
        "that",
        "the",
        "their",
        "them",
        "they",
        "this",
        "to",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "you",
        "your",
        "的",
        "了",
        "是",
        "吗",
        "呢",
        "吧",
        "啊",
    ]
)
"""Words a search drops from a query: they match nearly every text."""

EMBEDDING = word_set(
    """
    a an and are as at be been but by can could did do does for from had has have he her him
    his how i if in into is it its me my no not of on or our she so than that the their them
    then there they this to too was we were what when where which who why will with would you
    your yours am just about also any all some very really s t m d ll re ve
"""
)
"""Words so common that matching them says little about the topic: the hashing embedder
keeps them a small weight rather than none, so that a text made only of them still has a
direction."""

EMBEDDING_CHARACTERS = frozenset("的了是在我你他她它们吗呢吧啊和就也都很这那有个一不")
"""Chinese characters the hashing embedder weighs down as :data:`EMBEDDING` words."""

KEYWORDS = word_set(
    """a about above after again against all also am an and any are aren't as at be because
    been before being below between both but by can can't cannot could couldn't did didn't do
    does doesn't doing don't down during each even ever every few for from further get gets got
    gotta had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers
    herself him himself his how how's i i'd i'll i'm i've if in into is isn't it it's its itself
    just let let's lot lots made make makes many may me might more most much must mustn't my
    myself need needs never no nor not now of off often oh on once one only or other ought our
    ours ourselves out over own per quite rather really same shall she she'd she'll she's should
    shouldn't since so some something still such sure than that that's the their theirs them
    themselves then there there's these they they'd they'll they're they've thing things this
    those though through thus till to too under until up upon us very was wasn't way we we'd
    we'll we're we've were weren't what what's whatever when when's where where's whether which
    while who who's whom why why's will with within without won't would wouldn't yet you you'd
    you'll you're you've your yours yourself yourselves also back bit going gonna go goes went
    come came take took want wanted think thought know knew say said tell told see saw look
    looking feel felt kind sort maybe always usually already cuz 'cause ya yep yesterday today
    tomorrow tonight week weekend month year last next ago lately recently soon later help
    helps helped keep kept try tried trying give gave given start started put seem seems mean
    means almost done doing getting gets find found use used able lots bunch whole totally"""
)
"""Function words and very common verbs, lower case, ignored as keywords."""

SMALL_TALK = word_set(
    """hi hello hey heya hiya yo bye goodbye thanks thank ty thx please sorry ok okay okey yeah
    yes yea yup no nope nah wow whoa woah cool great awesome amazing nice good fine lovely
    wonderful fantastic terrible bad haha hahaha lol lmao omg um uh hmm hm mm ah aw aww oops
    welcome cheers congrats congratulations glad happy sounds sound totally definitely
    absolutely indeed true right exactly agree love like super pretty fun stuff mate buddy dear
    guys friend appreciate care morning evening afternoon night day long time see"""
)
"""Greetings, interjections and stock reactions: words that carry no content."""

CHINESE_FUNCTION_WORDS = sorted(
    word_set(
        """我们 你们 他们 她们 它们 咱们 自己 什么 怎么 怎样 为什么 哪里 哪儿 这里 那里 这个 那个
    这些 那些 一个 一下 一些 一点 有点 已经 因为 所以 但是 可是 不过 如果 虽然 然后 还是 就是
    不是 没有 可以 可能 应该 需要 想要 觉得 知道 现在 今天 昨天 明天 前天 后天 刚才 刚刚 时候
    非常 真的 特别 比较 还有 而且 或者 以及 请问 谢谢 你好 您好 好的 嗯嗯 哈哈 是的 对的 一定
    帮我 麻烦 告诉 一直 总是 其实 大家 东西 事情 问题 的话 之前 之后 以后 以前 最近 上周 下周
    本周 这周 上个月 下个月 这个月 去年 今年 明年 上个星期 下个星期 刚才 一直 今晚 昨晚
    的 了 吗 呢 吧 啊 呀 哦 嗯 么 啦 哈 我 你 您 他 她 它 们 是 在 和 与 跟 也 都 就 还 很 太 把
    被 给 又 才 这 那 个 从 向 要 能 想 让 去 来 说 有 没 不 再 更 请 帮 但 而 或 并 些""",
    ),
    key=lambda word: (-len(word), word),
)
"""Chinese function words and stock phrases: the split points that cut a Chinese sentence
into candidate key phrases (longest first so 什么 wins over 什)."""
