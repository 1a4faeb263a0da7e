"""Attribute phrases: which words of a question ask for which exact-lane attribute, zh and en.

The query registry (:class:`memlane.router.synonyms.SynonymRegistry`) starts from these;
each :class:`~memlane.Memory` may add its own. A ``*`` stands for up to 40 characters.
"""

from __future__ import annotations

PHRASES: dict[str, tuple[str, ...]] = {
    "location": (
        "住在哪里", "住在哪儿", "住在哪", "住哪里", "住哪儿", "住哪", "居住地", "居住在",
        "住址", "地址", "家在哪", "哪个城市", "什么城市", "所在城市", "城市", "搬到哪",
        "where does * live", "where do * live", "where did * live", "where * lives",
        "where * living", "lives in", "live in", "living in", "moved to", "which city",
        "what city", "city", "cities", "address", "location", "reside", "resides",
        "人在哪", "常住", "在哪生活", "在哪儿生活", "在哪里生活", "生活在哪", "where's home",
        "where is home", "residence", "city of residence", "place of residence",
    ),
    "work_location": (
        "在哪里工作", "在哪工作", "在哪儿工作", "在哪上班", "在哪里上班", "工作地点",
        "where does * work", "where do * work", "work location", "where * working",
    ),
    "employer": (
        "在哪里工作", "在哪工作", "在哪儿工作", "在哪上班", "在哪里上班", "哪家公司",
        "什么公司", "公司", "雇主", "工作单位", "工作", "employer", "company", "works for",
        "work for", "works at", "work at", "where does * work", "where do * work",
        "who does * work for", "在哪干", "东家", "where * working", "employs", "employed",
    ),
    "occupation": (
        "职业", "做什么工作", "什么工作", "干什么的", "做什么的", "occupation", "job",
        "profession", "what does * do for a living",
    ),
    "phone": (
        "手机号码", "手机号", "手机", "电话号码", "电话", "联系方式", "号码", "phone number",
        "phone", "mobile", "cell phone", "telephone", "number", "contact number",
    ),
    "email": (
        "邮箱地址", "邮箱", "电子邮件", "邮件地址", "email", "e-mail", "email address",
        "mail address",
    ),
    "order": ("订单号", "订单", "单号", "order number", "order id", "order"),
    "user_id": ("用户id", "用户编号", "账号", "user id", "account id", "account number"),
    "name": ("名字", "姓名", "叫什么", "称呼", "name"),
    "preferred_name": ("怎么称呼", "称呼", "昵称", "nickname", "preferred name"),
    "hometown": (
        "老家", "家乡", "哪里人", "哪儿人", "籍贯", "hometown", "where * from", "birthplace",
        "place of birth", "where * born", "where * grew up", "where * grow up",
    ),
    "birthday": ("生日", "出生", "birthday", "born", "date of birth"),
}  # fmt: skip
"""The phrases every new registry starts with, by attribute (colloquial ones last: 人在哪,
东家, "where's home", "where * working": a question about where someone lives or works now)."""
