"""Well-known places, to tell "在杭州工作" (a place) from "在阿里工作" (an employer).

It is deliberately short: provinces and big cities of China and the countries and cities a
chat most often names. Places outside it are still recognized where the sentence itself says
it is a place ("我搬到了X", "I moved to X" with a capital letter); the list only matters where
the grammar is ambiguous.
"""

from __future__ import annotations

import re

from memlane.lang.script import UNSPACED_RANGES as CJK_CLASS
from memlane.lang.script import word_set

ZH_PLACES = word_set(
    """
    北京 上海 天津 重庆 河北 山西 辽宁 吉林 黑龙江 江苏 浙江 安徽 福建 江西 山东 河南 湖北
    湖南 广东 海南 四川 贵州 云南 陕西 甘肃 青海 台湾 内蒙古 广西 西藏 宁夏 新疆 香港 澳门
    广州 深圳 杭州 南京 苏州 成都 武汉 西安 长沙 郑州 青岛 济南 大连 沈阳 哈尔滨 长春 厦门
    福州 合肥 南昌 昆明 贵阳 南宁 海口 三亚 兰州 西宁 银川 乌鲁木齐 拉萨 呼和浩特 石家庄 太原
    宁波 温州 无锡 常州 珠海 东莞 佛山 惠州 中山 汕头 烟台 威海 洛阳 桂林 台北 高雄 台中 绍兴
    嘉兴 扬州 徐州 南通 泉州 保定 唐山 秦皇岛 义乌 金华 台州 湖州 镇江 芜湖 宜昌 襄阳 株洲
    中国 美国 英国 法国 德国 日本 韩国 加拿大 澳大利亚 澳洲 新西兰 新加坡 马来西亚 泰国 越南
    印度 俄罗斯 意大利 西班牙 葡萄牙 荷兰 瑞士 瑞典 挪威 丹麦 芬兰 爱尔兰 比利时 奥地利 波兰
    巴西 墨西哥 阿根廷 埃及 南非 阿联酋 以色列 土耳其 菲律宾 印度尼西亚 印尼 国外 海外
    纽约 伦敦 巴黎 柏林 东京 大阪 京都 首尔 洛杉矶 旧金山 西雅图 波士顿 芝加哥 多伦多 温哥华
    悉尼 墨尔本 慕尼黑 法兰克福 汉堡 阿姆斯特丹 罗马 米兰 马德里 巴塞罗那 莫斯科 迪拜 曼谷
    吉隆坡 硅谷 湾区 维也纳 苏黎世 日内瓦 布鲁塞尔 斯德哥尔摩 哥本哈根 华盛顿 奥克兰 蒙特利尔
    休斯顿 达拉斯 奥斯汀 迈阿密 费城 亚特兰大 丹佛 里斯本 都柏林 爱丁堡 曼彻斯特 布拉格 华沙
    伊斯坦布尔 开罗 孟买 新德里 班加罗尔 雅加达 马尼拉 河内 胡志明市 赫尔辛基 奥斯陆
    朝阳 海淀 浦东 徐汇 静安 南山 福田 天河 西湖 滨江
    """
)
"""Chinese names of provinces, big cities of China and the countries and cities a chat most
often names."""

EN_PLACES = word_set(
    """
    beijing, shanghai, tianjin, chongqing, guangzhou, shenzhen, hangzhou, nanjing, suzhou,
    chengdu, wuhan, xi'an, xian, changsha, zhengzhou, qingdao, xiamen, hong kong, macau, macao,
    taipei, china, usa, us, u.s., america, united states, uk, u.k., united kingdom, england,
    britain, scotland, wales, ireland, france, germany, japan, korea, south korea, canada,
    australia, new zealand, singapore, malaysia, thailand, vietnam, india, russia, italy, spain,
    portugal, netherlands, holland, switzerland, sweden, norway, denmark, finland, belgium,
    austria, poland, brazil, mexico, argentina, egypt, south africa, uae, israel, turkey,
    philippines, indonesia, taiwan, new york, nyc, new york city, london, paris, berlin, tokyo,
    osaka, kyoto, seoul, los angeles, san francisco, seattle, boston, chicago, toronto,
    vancouver, sydney, melbourne, munich, amsterdam, rome, milan, madrid, barcelona, moscow,
    dubai, bangkok, kuala lumpur, vienna, zurich, geneva, brussels, stockholm, copenhagen,
    washington, washington dc, austin, miami, denver, houston, dallas, atlanta, philadelphia,
    portland, san diego, san jose, oakland, brooklyn, montreal, dublin, edinburgh, manchester,
    prague, warsaw, istanbul, cairo, mumbai, delhi, new delhi, bangalore, jakarta, manila, hanoi,
    lisbon, frankfurt, hamburg, oslo, helsinki, auckland, silicon valley, the bay area, bay area
    """,
    ",",
)
"""English names of the places a chat most often names, lower case."""

_ZH_PLACE_SUFFIXES = ("省", "市", "区", "县", "镇", "乡", "村", "州", "国", "岛", "特别行政区")


def longest_zh_place_prefix(text: str) -> int:
    """Length of the longest known Chinese place name ``text`` starts with (0 if none)."""
    for length in range(min(len(text), 5), 1, -1):
        if text[:length] in ZH_PLACES:
            return length
    return 0


def is_zh_place(value: str) -> bool:
    """Whether a Chinese value reads as a place: a known name or a name with a place suffix."""
    return longest_zh_place_prefix(value) > 0 or (
        len(value) >= 2 and value.endswith(_ZH_PLACE_SUFFIXES)
    )


def is_en_place(value: str) -> bool:
    """Whether an English value is a known place (case-insensitive)."""
    return value.casefold() in EN_PLACES


NOT_NAMES = word_set(
    """I Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March
    April May June July August September October November December OK Mr Mrs Ms Dr"""
)
"""Capitalized words that are no names of places or people (a summary's entities)."""

# "在" before a verb is the progressive ("我在学做菜"), not a place.
ZH_PLACE_AFTER = re.compile(
    f"(?:叫|住在|搬到|搬去|来自|去了|去|到了|飞往|回到|在(?![学想做看忙等找写读吃玩弄搞听练准考]))"
    f"([{CJK_CLASS}]{{2,8}})"
)
"""A Chinese place or name after the word that introduces it (住在, 搬到, 来自, 叫…)."""

ZH_SETTLED_AFTER = re.compile(
    f"(?:住在|搬到|搬去|搬回|来自|飞往|回到|定居在)([{CJK_CLASS}]{{2,8}})"
)
"""A Chinese place after a word of living or moving there (住在, 搬去, 来自…): a place
whatever its characters (太原, 成都 hold function characters)."""

ZH_PLACE_END = re.compile("[了的吧啦呢哈呀啊嘛]")
"""Particles that end a place read after :data:`ZH_SETTLED_AFTER`'s words."""

ZH_LOCATIVE = re.compile("[上里中下边旁].*$")
"""A locative after a place ("公司里", "桥上"): not part of its name."""

ZH_TRAILING_VERB = re.compile(
    "(?:工作|上班|上学|读书|生活|出差|旅游|旅行|玩|买|吃|看|开会|学习|参加|见面|住|待)+$"
)
"""Verbs that may follow a place ("在杭州工作"): not part of its name."""

ZH_VALUE_STOP = re.compile(
    r"了|啦|呢|吧|呀|哦|喔|嘛|啊|的|吗|已经|工作|上班|实习|读书|上学|生活|居住|定居|落户|住|去|来了|发展"
    r"|打工|差不多|将近|大概|现在|目前|那边|这边|附近|一带|以后|之后|之前|以前|因为|所以|但是|可是|很"
    r"|好久|好几|多年|[0-9一二两三四五六七八九十几半]+(?:年|个月|天|周)|个月|这里|那里|这儿|那儿"
    r"|[和跟与同](?:我|家人|朋友|女朋友|男朋友|老婆|老公|爱人|父母|爸妈|孩子|同事|室友|他|她)"
    r"|也|还|就|都|当|做|担任"
)
"""Words where a Chinese value ends (了, 已经, 工作, 现在, 和家人…): not part of a place or an
employer."""

ZH_COME = "来"
"""The directional complement of :data:`ZH_VALUE_STOP` ("搬到北京*来*了") that also ends names
(蔚来): after a single character it is the name's own."""

ZH_NAME_STOP = re.compile(
    r"了|啦|呢|吧|呀|哦|嘛|啊|的|是|今年|来自|住|在|现在|目前|我|你|也|和|跟|就|哈|吗"
)
"""Words where a Chinese name ends (了, 的, 是, 今年, 来自…)."""

NAME_CONNECTORS = frozenset(
    ["of", "de", "la", "le", "del", "da", "do", "am", "upon", "on", "and", "&", "du", "van", "von"]
)
"""Lower-case words inside a capitalized name (Frankfurt am Main, Bank of China)."""

EN_VALUE_STOP = word_set(
    "at for in with and but since because from to on by as when where while after before now "
    "currently today yesterday tomorrow last next this that who which so too also already then "
    "here there is was are am be been i my we our you your the a an it not"
)
"""Words where an English value ends (at, since, now, the…): not part of a name."""
