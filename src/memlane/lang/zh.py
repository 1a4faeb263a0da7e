"""Chinese: the closed word classes memlane reads (see :mod:`memlane.lang`)."""

from __future__ import annotations

NEGATORS = "不没别未非无勿莫"
"""Characters that negate what follows them."""

NOT_NEGATING = (
    "无锡", "无论", "无聊", "非常", "非洲", "未来", "别人", "别的", "别墅", "不错", "不过", "不久",
    "不少", "不同", "不仅", "不管", "不断", "不然", "没事",
)  # fmt: skip
"""Words that start with a negator character but negate nothing ("我出生于无锡")."""

LEADING_FILLERS = r"^(?:之前|以前|原来|现在|已经|一直|那个|这个|那|这|我的|我们|我|的|在|是)+"
TRAILING_PARTICLES = r"(?:了|的|吧|呢|啊|哈|呀|嘛|哦|啦|么)+$"
"""Words around a value that are not part of it ("之前那个月卡", "寄公司了")."""

SEPARATORS = r"的|那个|这个|那边|这边|和|与|或"
"""Words that split a run of characters into separate terms ("海口那边的房子")."""

GENERIC_TERMS = ("工作", "现在", "以后", "时候", "东西", "地方", "这边", "那边", "一下", "麻烦")
"""Two-character words too common to tie two statements to one value."""

RETRACTED_AFTER = (
    r"离开了?|辞去了?|辞掉了?|退掉了?|退出了?|取消了?|不再|不是|别再|停用了?|换掉了?|告别了?"
    r"|(?:以前|之前|原来|曾经)(?:一直)?(?:的|在|住在|是)?|别"
)
"""Cues followed by a value that no longer holds ("离开华为", "之前一直在太原")."""

RETRACTED_BEFORE = (
    r"(?:已经)?(?:不用了|不再用了|不要了|不住了|不在了|不干了|停用了?|作废了?|注销了?|取消了?"
    r"|待够了|够了|退了|没了|不行了|别[\u4e00-\u9fff]?了)"
)
"""Cues preceded by a value that no longer holds ("131那个号不用了", "建行的别扣了")."""

MODALS = ("可能", "也许", "或许", "会")
"""Words that make the verb after them a possibility, not an event ("可能会离开")."""

NEEDS = ("应该", "需要", "要", "该", "得", "可以", "能")
"""Modal verbs of need or ability: a run that holds one before a verb is a clause ("发票*要*发到
哪个邮箱", "*该*打哪个号"), not a noun narrowing the word after it."""

EPISODE_TIMES = r"上次|上回|那次|那回|这次|上个月|上周|去年|前年|昨天|前天|刚才"
"""Words that say when something happened: a run that holds one is a clause of an episode
("*上次*住的酒店"), not a noun narrowing the word after it."""

GOAL_COMPLEMENTS = "到给往进"
"""Characters after a verb that say where something goes ("发*到*", "打*给*", "寄*往*"): a run that
ends in one is a clause, not a noun."""

CHANGE_FROM = r"从"
CHANGE_VERB = r"(?:搬|迁|调|换|改|跳|转|到|去|离职|辞职)"
"""``从 <old> <change verb>``: "从上海搬到北京"."""

VALUE_END = (
    r"搬到|搬去|加入|换成|改成|改为|跳槽|现在|以后|然后|到|去|[，。；！？、,.;!?：:（）()\s]"
)
"""Where a value read after a cue ends."""

NEW_MARKERS = r"新的|新|换成|改成|改为|改用|以后用"
"""Words that mark the value next to them as the new one ("换成+86 199…", "新邮箱")."""

OLD_MARKERS = r"旧|以前的|之前的|原来的|停用|不用了|不再用|不再使用|注销|作废"
"""Words that mark the value next to them as out of use ("旧邮箱", "这个号停用了")."""

REPLACEMENT = rf"{NEW_MARKERS}|{OLD_MARKERS}|换了|以后(?:发|打|寄|联系)|那个号"
"""Cues that a value of some kind replaces another of the same kind."""

PLANS = r"打算|计划|准备|想要|想去|想搬|考虑|要去|要飞|将要|下次|以后去"
"""Cues that a question is about a plan, not a value that holds now."""

NEUTRAL_MODIFIERS = frozenset(
    ("现在", "目前", "当前", "新", "最新", "旧", "以前", "之前", "原来", "常用", "自己", "本人",
     "主要", "联系", "那个", "这个", "一个", "上一个", "上一份", "刚刚", "刚", "最近")
)  # fmt: skip
"""Words before an attribute that do not narrow it: "我*现在的*手机号" asks for the phone."""

PRIVATE_WORDS = frozenset(("个人", "私人", "私用"))
"""Words that narrow a code to the one not used for work ("*个人*邮箱"): any says the others."""

RIVAL_KINDS = (frozenset(("手机", "座机")),)
"""Compounds that share a head character but name two kinds of one thing, never the same one:
a mobile (手机) is no landline (座机), though both end in 机 (a 招行卡 may well be the 付款卡)."""

LOYALTY_WORDS = frozenset(("常旅客", "常旅", "里程"))
"""Words that narrow a code to a loyalty account ("*常旅客*卡号", "航空*里程*卡号"): any says the
others (and the English ones, :data:`memlane.lang.en.LOYALTY_WORDS`)."""

SUBJECT_WORDS = r"(?:我们|我|您|你|他|她|用户|客户|顾客|会员|本人|那个|这个|那|这)"
"""How a question names its subject before an attribute ("用户的", "我那个")."""

CONJUNCTIONS = r"和|与|或|及|跟|还有|以及"
"""Words that join two noun phrases: "手机号*和*邮箱" asks for two things."""

QUESTION_WORDS = r"哪个|哪些|哪家|哪|什么|多少|几"

ASKED_KIND = r"(?:哪|什么|啥)(?:个|些|家|位|种|款|间|座|所|条|只|一)?[\u4e00-\u9fff]{0,2}"
"""A question word with the noun of the kind it asks for ("哪家*快递*", "什么*颜色*"): that
noun names what is asked, not the thing asked about."""
"""Words that ask: "*哪个*手机号" narrows nothing."""

COMPANY = r"和|跟|与|同|带着|带"
"""Words that join the subject and someone in one question: "我*和*我妈", "*带着*孩子"."""

ASKS_OWNER = r"谁的"
"""A question about whom something belongs to ("她给*谁的*生日准备了礼物？")."""

ASKS_HISTORY = (
    r"以前|之前|原来|曾经|过去|历史|变更|改过|搬家前|上一[份个家]|前一[份个家]|前东家"
    r"|搬走|离开|离职|辞职|(?:跳槽|换工作|离职|搬家)前"
)
"""Words of a question about earlier values ("用户*以前*住哪", "*上一份*工作", "从哪*搬走*的")."""

ASKS_HOW_TO = r"一般怎么|怎么(?!样|回事|了)|如何|怎样|步骤|流程|操作方法"
"""Words of a question about how a kind of task is done ("退款*一般怎么*办理")."""

ASKS_CONTEXT = (
    r"喜欢|偏好|爱好|兴趣|习惯|口味|上次|那次|聊过|聊了|说过|说了什么|提到|提过|讲过|感觉|心情"
    r"|情绪|投诉|抱怨|问题|问过|问了|经历|发生|计划|打算|为什么|怎么样|觉得|印象|进度|退款|记得"
)
"""Words of a question about context, preferences or past episodes ("用户*喜欢*什么")."""

SWITCH = (
    r"改成|换成|改为|改到|换到|改用|换用|改一下|换一下|改约|重新约"
    r"|以后(?:都|就)?(?:用|发|打|寄|送|填|写)"
)
"""Cues that the speaker's arrangement switched ("快递换成韵达", "收件人改成…", "重新约周日")."""

GENERIC_NOUNS = frozenset(("城市", "地方", "国家", "公司", "单位", "号码", "名字", "工作"))
"""Nouns that name a kind of value, not whose it is: "哪个*城市*" asks for the subject's city
only when the question ties it to the subject ("*用户*住哪个城市")."""

SELF = ("我", "您", "你", "他", "她", "用户", "客户", "顾客", "会员", "本人")
"""How a question names its subject (a pronoun or the word for a user or customer)."""

SURNAMES = (
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘蒋蔡余"
    "于杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范廖贾夏韦付傅邹孟熊秦邱尹薛闫段雷侯陶黎贺顾"
    "毛郝龚邵钱严覃武戴莫孔汤樊葛邢乔伍庞颜倪庄聂岳翟殷詹耿焦俞柳祝宁尚符舒阮柯纪梅童"
    "凌毕季裴霍涂苗翁冉骆辛靳柴蒙鲍喻祁蒲房滕屈饶牟艾尤穆卓缪芦麦褚娄窦戚岑宫卜晏瞿佟"
    "臧闵苟邬卞姬仇栾隋刁沙荣巫寇桑郎甄丛仲虞敖巩佘池查麻苑迟邝官封谈匡鞠惠荆冀郁胥班"
    "储栗燕楚鄢劳谌奚皮粟冼蔺仝郜阚帅屠廉扈芮阙浦戈伏邸雍辜裘亓邰赫杭逯茹诸亢嵇茅"
)
"""Chinese surnames, one character each (a closed class: these and
:data:`COMPOUND_SURNAMES` cover nearly everyone): a question that opens with one, a given
name of one or two characters and a word of when ("*孙*春梅以前在哪家公司？") names a person,
not a thing. Surnames that are common words too (和, 都, 方, 金) are left out."""

COMPOUND_SURNAMES = ("欧阳", "司马", "上官", "诸葛", "东方")

AFTER_NAME = r"以前|之前|原来|曾经|现在|目前|当时|那会儿?|那时候?|已经|一直"
"""Words of when that follow the person a Chinese question opens with ("曾丹*现在*住哪")."""

NOW = r"现在|目前|如今|一直|已经"
"""Words of when that keep a statement in the present ("我*目前*在腾讯工作"), unlike 以前 or
当时: between a person and their verb they leave the relation current."""

ASPECT = r"正|仍然|依然|仍"
"""Aspect adverbs between a person and their verb ("李四*正*在腾讯上班", "张三*仍*住在上海"):
the 正 of 正在 is one of them, so a holder ends before it. A given name ending in 正 before a
verb then loses it ("王正住在…" → 王), which still names the person; keeping the adverb in
the holder ("李四正") would name no one."""

COPULAS = r"是|在|叫|有"
"""Words that tie a noun to what the question asks ("出生地*是*哪个城市")."""

CHANGE_SIGNS = r"搬|迁|跳槽|离职|辞职|入职|已经|不再|原[^，。,.\s]{1,12}[，,]\s*现"
"""Words that tell a state changed ("*搬*过来", "*已经*不在…了", "*原*腾讯，*现*就职于…"): what
held before differs."""

DONE_MARKS = r"的是|的|了|过"
"""What stands between a verb and the noun a question asks of it ("我去年夏天去*的是*哪个城市",
"去*过*哪个城市"): the noun is what the verb was done to, a relative clause's head."""

FUNCTION_CHARACTERS = frozenset("的是在了吗呢吧啊呀和与或也都就还又着过个这那为被把从到给对")
"""Characters that are grammar, not content: two statements sharing them share no topic."""

EITHER_OR = "还是"
"""The word between two values a question offers to choose from ("电话*还是*短信？")."""

CODE_NOUNS = r"尾号|编号|号(?!码)|[后末](?:几|\d+|[一二三四五六七八九十])位"
"""Nouns that ask for a code of some kind ("护照*号*", "身份证*尾号*", "身份证*后四位*"); 号码
is a phone's."""

VALUE_WORDS = r"号|码|邮箱|地址"
"""What an attribute word that names the value itself holds ("号码", "单号", "邮箱"), unlike
one that names the thing the value belongs to ("订单", "手机")."""

NOT_BEFORE_CODE = "几哪多零一二两三四五六七八九十"
"""Characters before 号 that make it a day or a rank ("几号", "五号"), not a code."""

CODE_KINDS = frozenset(("快递", "物流", "运单", "包裹", "订单"))
"""Words for the kind of a code ("*快递*单号"): beside the thing it is for, they narrow nothing."""

EVENT_NOUNS = r"预约|复查|复诊"
"""Nouns for one booked event among many ("*眼科*预约"), narrowed as a code is."""

HOLDING_VERBS = ("使用", "用", "留", "绑")
"""Verbs by which a subject holds a value: "现在*用*哪个邮箱" asks for it; with nothing else
before the attribute word but when (现在, 一直), they narrow nothing."""

FIRST_PERSON = "我"
"""The first person as the speaker says it (notes write the speaker's name in its place)."""
