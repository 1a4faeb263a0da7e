"""English: the closed word classes memlane reads (see :mod:`memlane.lang`)."""

from __future__ import annotations

NEGATORS = ("not", "no", "never", "nor", "cannot", "stop")
"""Words that negate what follows them."""

NEGATING_SUFFIX = "n't"
"""A contraction that negates its verb: "don't", "isn't", "won't"."""

PREPOSITIONS = frozenset(("of", "to", "for", "from", "with", "at", "on", "in", "by", "than"))
"""Words that tie the word before them into a phrase: "instead of" is no name."""

STOP_WORDS = frozenset(
    (
        "a", "an", "the", "and", "or", "but", "so", "to", "of", "in", "on", "at", "for", "with",
        "from", "by", "as", "is", "are", "was", "were", "be", "been", "being", "am", "i", "me",
        "my", "mine", "we", "our", "us", "you", "your", "he", "him", "his", "she", "her", "they",
        "them", "their", "it", "its", "this", "that", "these", "those", "there", "here", "then",
        "than", "now", "just", "also", "very", "really", "too", "pls", "please", "thanks", "thank",
        "lol", "haha", "do", "does", "did", "have", "has", "had", "will", "would", "can", "could",
        "should", "may", "might", "must", "shall", "not", "no", "never", "any", "anymore", "more",
        "most", "some", "all", "one", "ones", "old", "new", "btw", "im", "i'm", "it's", "that's",
        "what", "which", "who", "whom", "whose", "when", "where", "why", "how", "up", "out", "over",
        "into", "about", "after", "before", "since", "until", "while", "if", "because", "get",
        "got", "use", "used", "using", "going", "go", "went", "come", "came", "make", "made",
        "take", "took", "day", "days", "week", "weeks", "month", "year",
    )
)  # fmt: skip
"""Words that never make two statements about the same value."""

RETRACTED_AFTER = (
    r"quit|left|leaving|moved\s+(?:out\s+of|away\s+from)|no\s+longer(?:\s+(?:at|with|in"
    r"|on|using|use|work\s+(?:at|for)|live\s+in))?|stop(?:ped)?\s+using|instead\s+of|rather\s+than"
    r"|formerly(?:\s+(?:at|with|in))?|used\s+to(?:\s+(?:be|live\s+in|work\s+(?:at|for)))?"
    r"|switched\s+(?:away\s+)?from|changed\s+from|cancel(?:l?ed)?(?:\s+(?:the|my))?"
    r"|no\s+more|gone\s+off|went\s+off"
)
"""Cues followed by a value that no longer holds ("left Acme", "not vegan anymore")."""

NOT_ANY_MORE = (
    r"(?:\bnot|n't|\bnever|\bno(?:\s+(?:need|use)\s+(?:for|of))?)\s+(?P<old>[\w' ]{1,40}?)"
    r"\s+any\s?more\b"
)
"""``not <old> anymore``: "not vegan anymore", "don't leave them with the concierge anymore";
``no <old> anymore``, ``no need for <old> anymore``: "no landline anymore"."""

RETRACTED_BEFORE = (
    r"(?:(?:'s|\s+is|\s+are|\s+was|\s+has\s+been)?\s+(?:no\s+longer(?:\s+(?:in\s+use|used"
    r"|valid|active|working|current))?|not\s+in\s+use|out\s+of\s+(?:use|service))"
    r"|(?:'s|\s+is|\s+are|\s+was|\s+has\s+been)\s+(?:out|gone|closed|cancell?ed|dead|off"
    r"|disconnected|discontinued|deactivated))\b"
)
"""Cues preceded by a value that no longer holds ("the Visa's gone", "Monday is out"): an
adjective ("out", "gone") only after a copula, never as a particle ("check out", "hung out")."""

NO_LONGER_SUITS = r"\s+(?:doesn['’]t|does\s+not|won['’]t|will\s+not|no\s+longer)\s+work\b"
"""Preceded by a time that no longer suits ("Saturday doesn't work anymore"): as "Saturday
at 4pm works for the haircut" gives a time, this takes it back."""

CHANGE_FROM = r"from"
CHANGE_VERB = r"(?:to|into|→|->)"
"""``<change> from <old> to <new>``: "moved from Porto to San Francisco"."""

CHANGES = (
    r"(?:mov|switch|chang|relocat|transferr?|shift|transition|upgrad|downgrad|convert|turn"
    r"|promot|swapp?)(?:e|es|ed|ing)?|went|go|goes|going|gone"
)
"""Verbs of change that govern a "from … to …" (as 搬|迁|调|换 do in Chinese): without one it
spans a range ("everything from the food to the history") or a trip ("a pic from one of
John's trips to NYC"), and nothing is retracted."""

MODALS = ("would", "could", "might", "should", "may", "will", "wanna", "gonna")
"""Words that make the verb after them a possibility, not an event: "anyone else *would*
quit" quits nothing."""

VALUE_END = (
    r"\s+(?:to|and|but|now|for|since|because|so|then|anymore|any\s+more|as|at|on|in|with)\b"
    r"|[,;:!?()—–]|\.(?![^\s.])|\s-\s|$"
)
"""Where a value read after a cue ends (a period only at a word's end: "a.b@example.com")."""

NEW_MARKERS = r"\b(?:new|switch(?:ed)?\s+to|please\s+use)\b"
"""Words that mark the value next to them as the new one ("New email: …")."""

OLD_MARKERS = r"\b(?:old|previous|former|deactivated)\b|no\s+longer|not\s+in\s+use"
"""Words that mark the value next to them as out of use ("my old number")."""

REPLACEMENT = (
    rf"{NEW_MARKERS}|{OLD_MARKERS}|\b(?:switching\s+to|chang(?:e|ed|ing)\s+to|from\s+now\s+on"
    r"|instead|replac(?:e|ed|ing))\b"
)
"""Cues that a value of some kind replaces another of the same kind."""

PLANS = (
    r"\b(?:plan(?:s|ning|ned)?\s+to|planning|considering|thinking\s+(?:of|about)|going\s+to"
    r"|want(?:s|ed)?\s+to|hoping\s+to|will\s+be|next\s+(?:week|month|year|time)"
    r"|would\s+like\s+to|['’]d\s+like\s+to|one\s+day|some\s*day|dream(?:s|ing)?\s+of"
    r"|need(?:s)?\s+(?:to|a|an))\b"
)
"""Cues that a question is about a plan, not a value that holds now."""

SELF = ("i", "me", "my", "mine", "we", "our", "the user", "user", "the customer", "customer",
        "this user", "this customer", "this person", "he", "she", "his", "her", "they", "their",
        "them", "you", "your")  # fmt: skip
"""How a question refers to the subject itself."""

NEUTRAL_MODIFIERS = frozenset(
    ("new", "current", "present", "latest", "old", "own", "main", "primary", "usual", "home",
     "actual", "real", "full", "previous", "former", "last", "first", "other",
     "preferred", "best", "contact", "same", "exact", "whole", "correct", "right")
)  # fmt: skip
"""Words before an attribute that do not narrow it: "my *new* email" asks for the email."""

PRIVATE_WORDS = frozenset(("personal", "private"))
"""Words that narrow a code to the one not used for work ("my *personal* email"): any says
the others."""

LOYALTY_WORDS = frozenset(
    ("frequent", "flyer", "flier", "frequent-flyer", "frequent-flier", "loyalty", "mileage",
     "miles", "rewards")
)  # fmt: skip
"""Words that narrow a code to a traveller's or customer's loyalty account ("*frequent flyer*
number", "*loyalty* number for the airline", "*mileage* account"): any says the others."""

POST_MODIFIER = (
    r"(?:\s+(?:number|no\.?|id|code))?"
    r"\s+(?:for|on|at)\s+(?:(?:my|the|his|her|their|our|your|this|that|a|an)\s+)?"
)
"""What ties a narrowing phrase after an attribute: "tracking number *for my* keyboard",
"tracking *no. for the* mouse" (the code's noun may follow a name that holds none)."""

PAST_FORMS = frozenset(
    ("was", "were", "had", "did", "said", "told", "went", "came", "saw", "took", "made", "got",
     "gave", "found", "felt", "left", "bought", "brought", "thought", "met", "ran", "won", "sent",
     "spent", "began", "knew", "wrote", "ate", "sang", "drew", "built", "kept", "held", "lost",
     "paid", "sold", "became", "caught", "taught", "fought", "flew", "drove", "rode", "chose",
     "wore", "broke", "spoke", "woke", "grew", "threw", "heard", "sat", "stood", "forgot", "fell",
     "slept", "led", "swam", "hung", "shot", "understood", "meant")
)  # fmt: skip
"""Irregular verbs in the past tense (regular ones end in "-ed", see :data:`PAST_AFTER`)."""

PAST_AFTER = r"\b(?:i|we|you|he|she|they|it|who)\s+(?:just\s+|finally\s+|also\s+)?[a-z]+ed\b"
"""A regular verb in the past tense: an "-ed" word right after its subject ("we painted").
Elsewhere "-ed" is as often an adjective ("preferred name", "registered address")."""

PRESENT_VERBS = frozenset(
    ("is", "are", "am", "isn't", "aren't", "has", "have", "hasn't", "haven't", "does", "do",
     "doesn't", "don't", "can", "can't", "will", "won't", "shall", "must", "may", "'re", "'m")
)  # fmt: skip
"""Verbs that put a statement in the present: it says how things are ("the chair *is* …")."""

COMPANY = r"\b(?:and|with|&)"
"""Words that join the subject and someone in one question: "Mel *and* her kids", "*with* her
family" ask what they did together."""

ASKS_OWNER = r"\bwhose\b"
"""A question about whom something belongs to ("*Whose* birthday did she celebrate?")."""

ASKS_HISTORY = (
    r"\b(?:before|previous(?:ly)?|used\s+to|former(?:ly)?|history|earlier|old|past|ever"
    r"|changed?|left|leave|quit|use\s+to|move[ds]?\s+(?:away\s+from|out\s+of))\b"
)
"""Words of a question about earlier values ("where did they live *before*?", "which company
did I *leave*?")."""

ASKS_HOW_TO = (
    r"\bhow\s+(?:do|does|can|could|should|would)\s+(?:i|we|you|one|they|agents?|users?)\b"
    r"|\bhow\s+to\b|\bsteps?\s+(?:to|for)\b|\bwhat\s+are\s+the\s+steps\b|\bprocedure\b"
    r"|\bprocess\s+(?:for|of|to)\b|\bworkflows?\b|\bbest\s+way\s+to\b"
)
"""Words of a question about how a kind of task is done ("*how do I* get a refund?")."""

ASKS_CONTEXT = (
    r"\b(?:likes?|liked|loves?|prefers?|preferences?|favou?rites?|hobby|hobbies|interests?"
    r"|mention(?:ed)?|said|says?|talk(?:ed)?|told|discuss(?:ed)?|feel(?:s|ings?)?|felt|mood"
    r"|complain(?:ed|ts?)?|issues?|problems?|happened|experiences?|plans?|planning|why"
    r"|remember|last\s+time|story|progress|refunds?|opinions?|think|thinks|thought|ask(?:ed)?)\b"
)
"""Words of a question about context, preferences or past episodes ("what does she *like*?")."""

STATE_CUE = (
    r"(?:\b(?:i['’]?m|i\s+am|we['’]?re|we\s+are)\s+(?:now\s+|currently\s+|still\s+)?"
    r"(?:an?\s+(?:[a-z-]+\s+){1,3}(?=at\b))?|\bnow\s+)(?P<prep>in|at|with)\s+(?:the\s+)?"
)
"""Where the speaker is now: "I'm in Lyon", "we're at Acme now", "I'm a nurse at Acme", "now
with Acme". A place after it is a location; an organisation after "at" (or "now with") an
employer."""

JOINED_CUE = (
    r"\b(?:joined|(?:got\s+|been\s+|was\s+)?hired\s+by|(?:(?:started|starting|took|taking"
    r"|accepted|began|landed|got)\s+(?:a\s+)?)?new\s+(?:role|job|position)\s+(?:at|with)"
    r"|(?:started|starting|took|taking|accepted|began|landed|got)\s+(?:a\s+)?(?:role|job"
    r"|position)\s+(?:at|with)|(?:my\s+)?employer(?:\s+is|\s*:)?)\s+"
)
"""Words before an organisation the speaker now works for: "joined Acme", "got hired by
Acme", "started a new role at Acme", "employer: Acme"."""

JOINS = r"join|hire|new|start|took|taking|accept|began|landed|got"
"""Which of :data:`JOINED_CUE` tell a change: a past time beside them is when it began."""

MOVED_FROM = r"\b(?:moved|relocated|moving)\s+(?:back\s+|over\s+)?from\s+[\w'’ .-]{1,40}?\s+to\s+"
"""``moved from <old> to``: the new place follows."""

HOME_CUE = r"\b(?:my\s+)?home\s+(?:is|['’]s)\s+(?:now\s+)?(?:in\s+)?"
"""Words before the place the speaker lives: "home is Lyon for me"."""

ADDRESS_CUE = r"\b(?:my|new|home)\s+address(?:\s+is|\s*:)\s*"
"""Words before the speaker's address, whose last part names the city ("…, Lyon")."""

DWELLING_CUE = r"\b(?:my|our)\s+new\s+(?:place|home|flat|apartment|house|condo)\s+in\s+(?:the\s+)?"
"""A new home named with its place: "my new flat in Leeds" says where the speaker lives."""

ADVERB_SUFFIX = "ly"
"""Words ending so are adverbs ("finally", misspelt "finaly"): they may lead a statement."""

THING = r"\b(?:the|that|this|those|these)\s+(?P<thing>[a-z]+)"
"""A definite noun phrase: "which city is *the conference* in?" asks about that thing."""

SWITCH = (
    r"\b(?:from\s+now\s+on|instead|rather\s+than|change\s+of\s+plans?"
    r"|switch(?:ed|es|ing)?\b(?!\s+(?:off|on|up|out)\b)"
    r"|(?:chang|updat)(?:e|ed|ing)\s+(?:[\w']+\s+){0,4}?to)\b"
)
"""Cues that the speaker's arrangement switched ("a window seat from now on", "call me rather
than text"), whether or not the old one is named: what it shares with earlier statements of
the subject is what switched."""

UPDATE_HEADING = r"\bupdate\s+on\s+[^:.!?]{1,30}:(?!\d)"
"""A heading that announces news of something ("Update on my diet: I eat fish now"): what
follows it replaces what was said of that thing before, as a switch does."""

GENERIC_NOUNS = frozenset(("city", "town", "country", "place", "company", "number", "name"))
"""Nouns that name a kind of value, not whose it is: "which *city*" asks for the subject's
city only when the question ties it to the subject ("which city is *the user* in")."""

ASKS_KIND = frozenset(("which", "what"))
"""Words that ask for one of a kind: "*which* city"."""

COPULAS = ("is", "was", "are", "were", "'s")
"""Verbs that tie a noun to what a question asks ("what city *is* the user's office in?")."""

FIRST_PERSON = frozenset(
    ("i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "i'm", "i've", "i'll", "i'd",
     "we're", "we've", "we'll", "we'd")
)  # fmt: skip
"""Words by which the speaker names themself: a switch in their clause is the speaker's own."""

CLAUSE_LEAD = r"(?:(?:please|pls|plz|so|and|but|ok|okay|oh|also|just|actually|yes|yeah)\s+)*"
"""Words that may stand before a subject-less verb that still opens its clause ("pls switch
me to …", "and changed it to …")."""

SWITCH_VERB = r"(?:switch(?:es|ed|ing)?|chang(?:e|es|ed|ing)|updat(?:e|es|ed|ing))\b"
"""The verbs of :data:`SWITCH`: a clause may open with one, its subject dropped ("switched to
paying yearly"); an adverb ("instead", "from now on") opens no clause of its own."""

LISTENER = frozenset(("you", "your", "yours", "yourself", "you're", "you've", "you'll", "you'd"))
"""Words by which the speaker addresses the listener: a switch in a clause of theirs alone
("you can use oil instead of butter") is advice, not the speaker's arrangement."""

REQUEST_WORDS = frozenset(("please", "pls", "plz", "kindly"))
"""Words of a request: a clause asking for something is the speaker's arrangement ("from now
on please use the side door")."""

EITHER_OR = r"\b(?P<a>[a-z][\w'-]*)\s+or\s+(?P<b>[a-z][\w'-]*)\b"
"""Two values a question offers to choose from: "monthly *or* yearly?"."""

CODE_NOUNS = r"no\.|landline"
"""Nouns that ask for a code of some kind beside the attribute phrases ("passport *no.*", "the
*landline* at my office"): what narrows them is read by :mod:`memlane.lang.qualifiers`."""

AUXILIARIES = ("did", "does", "do", "will", "would")
"""Verbs that put a question's own verb after its subject: "which city *did* I visit?"."""

DO_FORMS = ("do", "does", "did")
"""The forms of "do" that carry a question's tense: a phrase written with one ("where does *
work") matches a question written with another ("where *did* the user work?")."""

EVENT_AS_TIME = (
    r"\b(?:before|after|since|until|till|prior\s+to)\s+(?:the|my|his|her|their|our|its|this"
    r"|that)\s+(?:[a-z][\w'-]*\s+){0,3}[a-z][\w'-]*(?=\s*(?:[?.!,;]|$))"
)
"""An event that dates the question, closing it: "where did I work *before the job change*?".
Its nouns name the event, not what is asked (:func:`memlane.lang.changes.event_times`)."""

HOLDING_VERBS = frozenset(
    ("have", "has", "had", "use", "used", "get", "got", "own", "hold", "keep")
)
"""Verbs by which a subject holds a value: "which number did they *have* then?" asks for it."""

EVENT_NOUNS = r"appointments?|bookings?|reservations?|check-?ups?"
"""Nouns for one booked event among many ("my *eye doctor* appointment"): what narrows them is
read as for a code (:mod:`memlane.lang.qualifiers`)."""

ON_RECORD = frozenset(("file", "record"))
"""Nouns after "on" that say where a value is kept, not which one is asked: "my phone number
*on file*", "the address *on record*" narrow nothing."""
