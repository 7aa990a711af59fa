"""General English rules shared by the heuristic roles (and reusable elsewhere).

Everything here is deterministic regex/lexicon work over *general* language — sentence and
clause splitting, speech-act cues (questions, greetings, instructions, hedges), first-person
detection, negation and change cues, number/date/name spotting, a light stemmer, and the
SQuAD-style answer normalisation the scorers use. None of it is tuned to any dataset's
phrasings: the heuristic model is judged on conversations it has never seen, so every rule
must be a rule of the language, not of a corpus. See docs/heuristics.md for the rationale and
the known weak spots.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
import string
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

# ---------------------------------------------------------------------------------------------
# Tokens, stopwords, stemming
# ---------------------------------------------------------------------------------------------

STOPWORDS: frozenset[str] = frozenset(
    """a an the and or but if of at by for with about against between into through during before after above
    below to from up down in out on off over under again further then once here there when where why how all any
    both each few more most other some such no nor not only own same so than too very s t can will just don should
    now i me my myself we our ours ourselves you your yours yourself he him his himself she her hers herself it its
    itself they them their theirs themselves what which who whom whose this that these those am is are was were be
    been being have has had having do does did doing would could might must shall may im i'm i've i'd i'll you're
    you've you'd you'll he's she's it's we're we've we'd we'll they're they've they'd that's there's what's
    he'd she'd he'll she'll they'll it'll that'll there'd it'd who'd
    who's let's isn't aren't wasn't weren't don't doesn't didn't won't wouldn't can't cannot couldn't shouldn't
    haven't hasn't hadn't as also too really actually just still even ever yet got get gets""".split()
)
"""Function words. Content words are everything else (after lowercasing)."""

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)

_IRREGULAR = {
    "went": "go", "gone": "go", "goes": "go", "bought": "buy", "ate": "eat", "eaten": "eat", "drove": "drive",
    "driven": "drive", "flew": "fly", "flown": "fly", "flies": "fly", "met": "meet", "saw": "see", "seen": "see",
    "got": "get", "gotten": "get", "had": "have", "has": "have", "made": "make", "took": "take", "taken": "take",
    "gave": "give", "given": "give", "began": "begin", "begun": "begin", "came": "come", "ran": "run",
    "wrote": "write", "written": "write", "felt": "feel", "left": "leave", "kept": "keep", "found": "find",
    "thought": "think", "taught": "teach", "caught": "catch", "brought": "bring", "sold": "sell", "told": "tell",
    "won": "win", "lost": "lose", "spent": "spend", "sent": "send", "built": "build", "paid": "pay", "grew": "grow",
    "grown": "grow", "knew": "know", "known": "know", "swam": "swim", "sang": "sing", "sung": "sing",
    "rode": "ride", "ridden": "ride", "broke": "break", "broken": "break", "chose": "choose", "chosen": "choose",
    "spoke": "speak", "spoken": "speak", "wore": "wear", "worn": "wear", "held": "hold", "heard": "hear",
    "sat": "sit", "stood": "stand", "slept": "sleep", "lent": "lend", "fell": "fall", "fallen": "fall",
    "became": "become", "children": "child", "kids": "kid", "men": "man", "women": "woman", "people": "person",
    "feet": "foot", "teeth": "tooth", "mice": "mouse", "wives": "wife", "lives": "live", "hid": "hide",
    "forgot": "forget", "forgotten": "forget", "understood": "understand", "led": "lead", "fed": "feed",
    "quit": "quit", "shot": "shoot", "threw": "throw", "thrown": "throw", "drew": "draw", "drawn": "draw",
    "drank": "drink", "drunk": "drink", "sank": "sink", "bit": "bite", "hung": "hang", "dug": "dig",
    "tore": "tear", "torn": "tear", "shook": "shake", "shaken": "shake", "woke": "wake", "woken": "wake",
    "froze": "freeze", "frozen": "freeze", "stole": "steal", "stolen": "steal", "bent": "bend", "lit": "light",
    "meant": "mean", "dealt": "deal", "fought": "fight", "sought": "seek", "slid": "slide", "spun": "spin",
    "stuck": "stick", "struck": "strike", "swung": "swing", "swore": "swear", "sworn": "swear", "wept": "weep",
    "crept": "creep", "leapt": "leap", "knelt": "kneel", "dreamt": "dream", "burnt": "burn", "learnt": "learn",
    "spelt": "spell", "spilt": "spill", "blew": "blow", "blown": "blow", "forgave": "forgive", "hurt": "hurt",
    "sprang": "spring", "sprung": "spring", "rang": "ring", "rung": "ring", "sank": "sink", "shrank": "shrink",
    "studies": "study", "studied": "study", "married": "marry", "was": "be", "were": "be", "is": "be", "are": "be",
    "am": "be", "been": "be", "did": "do", "done": "do", "does": "do", "said": "say", "says": "say", "paid": "pay",
}
_BRITISH = {
    "favourite": "favorite", "favourites": "favorite", "colour": "color", "colours": "color", "neighbour": "neighbor",
    "neighbours": "neighbor", "theatre": "theater", "centre": "center", "travelling": "traveling",
    "travelled": "traveled", "licence": "license", "organise": "organize", "organised": "organize",
    "realise": "realize", "realised": "realize", "programme": "program", "mum": "mom", "grey": "gray",
    "flavour": "flavor", "honour": "honor", "jewellery": "jewelry", "cancelled": "canceled", "fave": "favorite",
    "fav": "favorite", "movies": "movie", "films": "film",
}


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens (letters/digits, inner apostrophes kept: "don't", "maria's")."""
    return [t.replace("’", "'") for t in _WORD.findall(text.lower())]


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light, *consistent* suffix stripper (plural, -ing, -ed, final -e) plus irregular forms.

    Consistency matters more than linguistic correctness: "live", "lives", "living", "lived" all
    map to "liv", so a question and a memory that use different inflections still match.
    """
    w = word.lower().replace("’", "'")
    if w.endswith("'s"):
        w = w[:-2]
    w = _BRITISH.get(w, w)
    w = _IRREGULAR.get(w, w)
    if len(w) <= 3 or not w.isalpha():
        return w
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("ied") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("sses"):
        w = w[:-2]
    elif w.endswith(("xes", "ches", "shes", "zes")):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    if w.endswith("ing") and len(w) > 5:
        w = w[:-3]
        if len(w) > 2 and w[-1] == w[-2] and w[-1] not in "ls":
            w = w[:-1]
    elif w.endswith("ed") and len(w) > 4:
        w = w[:-2]
        if len(w) > 2 and w[-1] == w[-2] and w[-1] not in "ls":
            w = w[:-1]
    if w.endswith("e") and len(w) > 3:
        w = w[:-1]
    if w.endswith("y") and len(w) > 3:
        w = w[:-1] + "i"
    return w


def content_words(text: str) -> list[str]:
    """Lower-cased tokens that are not function words (order kept, duplicates kept)."""
    return [t for t in tokenize(text) if t not in STOPWORDS]


def content_stems(text: str) -> set[str]:
    """Stems of the content words: the unit of lexical overlap everywhere in the heuristics."""
    return {stem(t) for t in content_words(text)}


# ---------------------------------------------------------------------------------------------
# Answer normalisation and comparison (SQuAD conventions)
# ---------------------------------------------------------------------------------------------

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT_TABLE = str.maketrans({c: " " for c in string.punctuation + "’‘“”–—…"})


def normalize_answer(text: str) -> str:
    """SQuAD normalisation: lowercase, punctuation → space, drop articles a/an/the, collapse spaces."""
    t = str(text or "").lower().translate(_PUNCT_TABLE)
    t = _ARTICLES.sub(" ", t)
    return " ".join(t.split())


def token_f1(a: str, b: str) -> float:
    """Token-level F1 between two answers after :func:`normalize_answer` (0 when either is empty)."""
    ta, tb = normalize_answer(a).split(), normalize_answer(b).split()
    if not ta or not tb:
        return float(ta == tb)
    common = Counter(ta) & Counter(tb)
    same = sum(common.values())
    if not same:
        return 0.0
    p, r = same / len(ta), same / len(tb)
    return 2 * p * r / (p + r)


_ABSTAIN = re.compile(
    r"\b(?:i\s+(?:do\s*n[o']t|don't|dont|really\s+don't)\s+(?:know|remember|recall|have\s+(?:that|any|this|enough))"
    r"|(?:can\s*not|can't|cant|couldn't|could\s+not|unable\s+to)\s+(?:recall|remember|tell|say|find|determine|answer|know)"
    r"|not\s+(?:been\s+)?(?:mentioned|specified|stated|provided|given|available|known|recorded|discussed|shared|said)"
    r"|(?:no|not\s+enough|insufficient)\s+(?:information|info|record|records|mention|memory|memories|data|details|context|evidence)"
    r"|you\s+(?:have\s+not|haven't|never|didn't|did\s+not)\s+(?:told|tell|mentioned|mention|said|say|shared|share)"
    r"|(?:there\s+is|there's)\s+no\s+(?:information|record|mention|way\s+to\s+know)"
    r"|i\s+have\s+no\s+(?:idea|information|record|memory)|no\s+idea|not\s+sure|i'm\s+not\s+aware|i\s+am\s+not\s+aware"
    r"|doesn't\s+say|does\s+not\s+say|isn't\s+mentioned|is\s+not\s+mentioned|unanswerable|cannot\s+be\s+determined)\b"
)
_ABSTAIN_EXACT = {"unknown", "n a", "na", "none given", "no answer", "idk", "dunno", "unsure"}


def is_abstention(text: str) -> bool:
    """True when a response declines to answer ("I don't know", "not mentioned", "no information"...)."""
    t = str(text or "").lower().replace("’", "'").strip()
    if not t:
        return True
    if normalize_answer(t) in _ABSTAIN_EXACT:
        return True
    return bool(_ABSTAIN.search(t))


# ---------------------------------------------------------------------------------------------
# Sentences and clauses
# ---------------------------------------------------------------------------------------------

_ABBREV = frozenset(
    "mr mrs ms dr prof st jr sr vs etc e.g i.e eg ie approx no mt ft inc ltd co jan feb mar apr jun jul aug sep sept "
    "oct nov dec mon tue wed thu fri sat sun ave rd blvd dept est fig al u.s u.k a.m p.m am pm".split()
)
_BOUNDARY = re.compile(r"(?:[.!?]+|…)[\"'”’)\]]*\s+|\n+")


def split_sentences(text: str) -> list[str]:
    """Split text into sentences at . ! ? … and newlines, not after abbreviations or initials.
    Whitespace inside a sentence is collapsed to single spaces (which also keeps every later regex
    linear on pathological input)."""
    text = str(text or "").strip()
    if not text:
        return []
    out: list[str] = []
    start = 0
    for m in _BOUNDARY.finditer(text):
        end = m.end()
        if "\n" not in m.group() and m.group().lstrip()[:1] == ".":
            prev = re.search(r"([\w.]+)\.$", text[start : m.start() + 1])
            if prev:
                w = prev.group(1).lower().rstrip(".")
                if w in _ABBREV or (len(w) == 1 and w.isalpha()):
                    continue
        s = " ".join(text[start:end].split())
        if s:
            out.append(s)
        start = end
    tail = " ".join(text[start:].split())
    if tail:
        out.append(tail)
    return out


_PRONOUN_SUBJECTS = frozenset(
    "i i'm i've i'd i'll we we're we've we'd we'll my our me he she they he's she's they're his her their".split()
)


def split_clauses(sentence: str) -> list[str]:
    """Split a run-on sentence at ", and" / ", but" / "; " / " - " / " and " when the part after
    the joint starts with its own subject (so "I have two kids and a dog" stays whole while
    "I live in Lisbon and my sister lives in Porto" becomes two statements)."""
    sentence = " ".join(sentence.split())
    parts = re.split(r"\s*(?:;|\s[-–—]\s|,\s*(?:and|but|so|plus)\s+|\s(?:and|but)\s+(?=(?:i|i'm|i've|i'd|my|we|we're|our|he|she|they|his|her|their)\b)|,\s+(?=(?:i|i'm|i've|i'd|my|we|we're|we've|our)\s))\s*", sentence)
    out: list[str] = []
    for p in parts:
        p = p.strip(" ,")
        if not p:
            continue
        if out and not _starts_with_subject(p):
            out[-1] = f"{out[-1]}, {p}" if not out[-1].endswith(",") else f"{out[-1]} {p}"
        else:
            out.append(p)
    return out or [sentence]


def _starts_with_subject(clause: str) -> bool:
    """Does the clause open with its own subject (a pronoun, "my X", or a capitalised name + verb)?"""
    c = clause.lstrip().replace("’", "'")
    words = c.split()
    if not words:
        return False
    w = words[0].strip(",").lower()
    if w in _PRONOUN_SUBJECTS:
        return True
    if words[0][:1].isupper() and w not in STOPWORDS and len(words) > 1:
        return words[1].lower() not in STOPWORDS | {"and"} or words[1].lower() in {"is", "was", "has", "had", "will"}
    return False


# ---------------------------------------------------------------------------------------------
# Speech acts
# ---------------------------------------------------------------------------------------------

WH_WORDS = ("what", "where", "when", "who", "whom", "whose", "why", "how", "which")
_AUX = r"(?:do|does|did|is|are|was|were|can|could|would|will|should|have|has|had|may|might|shall|am|must|isn't|aren't|don't|doesn't|didn't|won't|wouldn't|can't|couldn't)"
_Q_AUX = re.compile(rf"^(?:so\s+|and\s+|but\s+|hey\s+|ok\s+)?{_AUX}\s+(?:you|i|we|it|there|they|he|she|this|that|my|your|anyone|someone|u)\b", re.I)


def is_question(sentence: str) -> bool:
    """A question: ends with "?", or opens like one ("can you…", "where is…", "do I…")."""
    s = sentence.strip().replace("’", "'")
    if not s:
        return False
    if s.rstrip("\"')”’ ").endswith("?"):
        return True
    if _Q_AUX.match(s):
        return True
    m = re.match(r"^(?:so\s+|and\s+)?(what|where|when|who|whom|whose|why|how|which)\b(?:'s|'re)?\s*(\w+)?", s, re.I)
    if m:
        nxt = (m.group(2) or "").lower()
        # "What I love most is…" / "How I met my wife…" are statements
        return nxt not in {"i", "we", "my", "our", "he", "she", "they"}
    return False


_GREETING = re.compile(
    r"^(?:hi|hello|hey|hiya|howdy|yo|good\s+(?:morning|afternoon|evening|night)|morning|evening|thanks(?:\s+a\s+lot)?|"
    r"thank\s+you(?:\s+(?:so|very)\s+much)?|thanks\s+(?:so|very)\s+much|thx|ty|cheers|bye|goodbye|see\s+(?:you|ya)|talk\s+(?:to\s+you\s+)?(?:soon|later)|"
    r"take\s+care|have\s+a\s+(?:good|nice|great|lovely)\s+\w+|nice\s+to\s+(?:meet|chat|talk)(?:\s+(?:you|with\s+you))?|"
    r"how\s+are\s+you(?:\s+doing)?|how's\s+it\s+going|what's\s+up|sup|ok(?:ay)?|sure|cool|great|awesome|nice|wow|"
    r"lol|haha+|hah|hmm+|um+|uh+|oh|ah|aw+|ugh|ooh|meh|phew|yay|omg|oops|whoa|gosh|geez|jeez|yes|yeah|yep|yup|no|nope|nah|got\s+it|sounds\s+(?:good|great|fine|fun|"
    r"amazing|perfect)|perfect|exactly|right|true|indeed|of\s+course|definitely|absolutely|totally|for\s+sure|"
    r"that's\s+(?:great|awesome|cool|nice|good|amazing|interesting|fair|true|right|fine|so\s+\w+)|i\s+see|"
    r"i\s+agree|me\s+too|same\s+here|no\s+worries|no\s+problem|you're\s+welcome|np|well|so|anyway|btw|"
    r"by\s+the\s+way|honestly|oh\s+well|alright|all\s+right|fair\s+enough|good\s+to\s+know|love\s+it|"
    r"congrats|congratulations|good\s+luck|awesome\s+thanks|merry\s+christmas|happy\s+(?:new\s+year|holidays|birthday|"
    r"easter|thanksgiving|hanukkah|diwali|eid|anniversary)|season's\s+greetings)\b[\s,!.:;-]*",
    re.I,
)


_ALWAYS_STRIP = frozenset(
    "hi hello hey hiya howdy yo oh ah aw um uh hmm lol haha hah wow yeah yep yup yes no nope nah so well anyway btw "
    "ugh ooh meh phew yay omg oops whoa gosh geez jeez "
    "ok okay alright thanks thx ty cheers honestly".split()
)


def strip_interjections(sentence: str) -> str:
    """Remove leading greetings/interjections ("Hi, ", "Oh well, ", "Thanks! ") — keeps "actually".

    Clear interjections ("oh", "hey", "yeah", "so") go even without punctuation; words that can
    start a real statement ("Great Britain…", "True crime…", "Sure enough…") only when set off
    by punctuation or when they are the whole sentence."""
    s = sentence.strip()
    for _ in range(4):
        m = _GREETING.match(s)
        if not m or m.end() == 0:
            break
        word = m.group().strip(" ,!.:;-").lower()
        first = word.split()[0] if word else ""
        rest = s[m.end():]
        punctuated = bool(re.search(r"[,!.:;-]", m.group())) or not rest.strip()
        if not punctuated and not (word in _ALWAYS_STRIP or (first in _ALWAYS_STRIP and first not in {"no", "so", "well", "yes"})
                                   or re.match(r"(?:thank|good\s+(?:morning|afternoon|evening|night)|nice\s+to)", word)):
            break
        s = rest
    return s.strip()


# Words that carry no durable content on their own (mood, politeness, vague verbs, fillers).
GENERIC = frozenset(
    """be have do go think know see guess feel agree understand mean hope want need sound seem look like love enjoy
    really pretty quite lot lots much many great good fine okay ok nice cool awesome amazing glad happy sure sorry excited
    interesting wonderful fun funny yeah yes thing things stuff lol haha today now right well definitely totally
    absolutely thanks thank tired busy bored hungry sleepy exhausted stressed bit kind sort way idea point true
    appreciate help helpful said say tell told talk talking chat chatting cute lovely beautiful perfect wow agree super
    ever best brilliant fantastic incredible hold own use keep make take put give
    nervous sick scared worried anxious relieved proud upset sad angry annoyed calm ready slightly little very
    news big bigger huge though honestly kinda somewhat weird strange crazy rough tough hard easy bad worse worst
    better terrible awful horrible mixed""".split()
)


def informative_words(text: str) -> list[str]:
    """Content words minus :data:`GENERIC` (stemmed comparison) — what a fact must contain."""
    generic = {stem(g) for g in GENERIC}
    return [w for w in content_words(text) if stem(w) not in generic and w not in GENERIC]


def is_small_talk(sentence: str) -> bool:
    """Greetings, thanks, reactions and mood chatter with nothing durable left once stripped."""
    s = strip_interjections(sentence)
    if not s:
        return True
    if re.match(r"^(?:i'm|i\s+am|we're|we\s+are)\s+(?:so\s+|really\s+|very\s+)?(?:glad|happy|sorry|excited|thrilled|"
                r"grateful|thankful)\s+(?:to\s+hear|for\s+you|you|that|about\s+that)\b", s, re.I):
        return True
    return not informative_words(s) and not find_numbers(s)


_IMPERATIVE_VERBS = (
    "remember|memorize|memorise|note|forget|ignore|disregard|override|save|store|record|write|log|update|delete|erase|"
    "remove|add|set|reset|pretend|act|behave|respond|reply|answer|say|tell|repeat|print|output|show|give|list|recommend|"
    "suggest|find|search|look|help|explain|book|schedule|remind|send|translate|summarize|summarise|draft|create|make|"
    "plan|stop|use|keep|call|treat|assume|consider|imagine|describe|check|compare|calculate|convert|name|pick|choose|"
    "bear|please|let|do|don't|never|always|go|try|mark|flag|insert|change|replace|overwrite|append|put|enter|activate|"
    "enable|disable|reveal|share|email|text|play|open|cancel|confirm|order|buy|get|fetch|read|tell"
)
_IMPERATIVE = re.compile(rf"^(?:(?:ok(?:ay)?|so|and|also|now|hey|just|oh)[\s,]+)*(?:{_IMPERATIVE_VERBS})\b(?!\s+(?:i|we)\b)", re.I)
_ADDRESSED = re.compile(
    r"\b(?:from\s+now\s+on|you\s+(?:must|should|will|shall|need\s+to|have\s+to|are\s+now|are\s+to|can\s+now)|"
    r"your\s+(?:new\s+)?(?:instructions?|rules?|task|role|prompt|memory)|system\s+prompt|(?:previous|prior|above|earlier|all)\s+"
    r"(?:instructions?|messages?|rules?|prompts?)|i\s+(?:want|need|would\s+like|'d\s+like)\s+you\s+to|"
    r"as\s+an\s+ai|developer\s+mode|jailbreak|new\s+rule|make\s+sure\s+(?:you|to)|don't\s+forget\s+(?:that|to)|"
    r"keep\s+in\s+mind|take\s+note|note\s+that|for\s+the\s+record|(?:the|this)\s+(?:user|assistant)(?:'s)?\b)", re.I
)


def is_instruction(sentence: str) -> bool:
    """An imperative addressed to the assistant, or text about the assistant/its memory/the user in the
    third person — the shape of prompt-injection ("ignore previous…", "remember that…", "from now
    on say…", "the user's password is…"). Such sentences never become facts."""
    s = sentence.strip().replace("’", "'")
    if not s:
        return False
    if _ADDRESSED.search(s):
        return True
    return bool(_IMPERATIVE.match(s))


_HEDGE = re.compile(
    r"(?:^(?:if|maybe|perhaps|possibly|hypothetically|suppose|supposing|imagine|in\s+case)\b|"
    r"\b(?:if\s+(?:i|we)\s+ever|someday|some\s+day|one\s+day|hypothetically|what\s+if|i\s+wonder|"
    r"(?:i|we)\s+(?:might|may|could)\s+(?:\w+\s+)?(?:be|have|go|try|get|move|start|take|consider|end\s+up)|"
    r"not\s+sure\s+(?:if|whether)|i\s+(?:wish|dream)|would\s+(?:be\s+)?(?:nice|cool|fun|great)\s+(?:to|if)|"
    r"in\s+another\s+life|thinking\s+about\s+maybe|if\s+only)\b)",
    re.I,
)


def is_hedged(sentence: str) -> bool:
    """Hypotheticals and wishes ("if I ever…", "maybe someday", "I might…", "I wonder…")."""
    return bool(_HEDGE.search(sentence.strip().replace("’", "'")))


_FIRST_SUBJECT = re.compile(
    r"^(?:(?:actually|also|and|but|so|now|just|recently|lately|honestly|basically|plus|still|finally|currently|"
    r"nowadays|today|yesterday|tonight|these\s+days|this\s+\w+|last\s+\w+|next\s+\w+|in\s+[\w\s]{1,20}?|"
    r"since\s+[\w\s]{1,20}?|after\s+[\w\s]{1,25}?|when\s+[\w\s]{1,25}?|as\s+a\s+kid|growing\s+up|"
    r"\w+\s+(?:days|weeks|months|years)\s+ago|a\s+\w+\s+ago|back\s+in\s+\w+),?\s+)*"
    r"(?:i|i'm|i've|i'd|i'll|me\s+and|we|we're|we've|we'd|we'll|my|our|mine)\b",
    re.I,
)


def is_first_person(sentence: str) -> bool:
    """The sentence asserts something about the speaker: first-person subject (possibly after a
    short time adverbial: "Last year I…"), or a first-person possessive anywhere ("…my sister…")."""
    s = sentence.strip().replace("’", "'")
    if _FIRST_SUBJECT.match(s):
        return True
    toks = tokenize(s)
    return any(t in {"my", "our", "mine", "ours", "i", "i'm", "i've", "i'd", "i'll", "we", "we're", "we've", "we'd",
                     "we'll"} for t in toks)


RELATION_NOUNS = frozenset(
    """wife husband partner spouse girlfriend boyfriend fiance fiancee fiancé fiancée son daughter kid kids child
    children baby mom mum mother dad father parent parents brother sister sibling siblings twin grandma grandpa
    grandmother grandfather grandparents aunt uncle cousin niece nephew friend friends bestie buddy roommate
    flatmate housemate neighbor neighbour boss manager coworker co-worker colleague colleagues teacher coach
    doctor therapist landlord mentor classmate teammate in-laws stepdad stepmom stepson stepdaughter godmother
    godfather ex dog cat puppy kitten pet horse parrot""".split()
)


def third_person_subject(sentence: str) -> bool:
    """A statement whose subject is a named person or a relation ("Ana just got promoted", "He moved")."""
    s = sentence.strip()
    m = re.match(r"^(?:(?:actually|also|and|but|so|now|just|recently|yesterday|today|last\s+\w+),?\s+)*([\w'’-]+)(?:\s+([\w'’-]+))?", s, re.I)
    if not m:
        return False
    w = m.group(1)
    if w.lower() in {"he", "she", "they", "he's", "she's", "they're", "they've", "he'd", "she'd"}:
        return True
    if w.lower().rstrip("s").rstrip("'’") in RELATION_NOUNS:
        return True
    return bool(w[:1].isupper() and w.lower() not in STOPWORDS and w.lower() not in _NOT_NAMES and not is_question(s))


_SECRET = re.compile(
    r"\b(?:passwords?|passcodes?|pass\s*phrases?|pin(?:\s+(?:code|number))?|api\s+keys?|security\s+(?:code|question|answer)|"
    r"cvv|cvc|social\s+security(?:\s+number)?|ssn|credit\s+card(?:\s+number)?|card\s+number|bank\s+account(?:\s+number)?|"
    r"routing\s+number|iban|private\s+key|secret\s+key|access\s+token|login\s+details|credentials?|2fa|otp)\b",
    re.I,
)


def mentions_secret(sentence: str) -> bool:
    """Credentials and payment secrets: never stored, whoever states them (privacy rule)."""
    return bool(_SECRET.search(sentence))


# ---------------------------------------------------------------------------------------------
# Negation, change, preference, plan cues
# ---------------------------------------------------------------------------------------------

_PLAIN_NEGATION = re.compile(
    r"\b(?:not|no|never|neither|nor|cannot|no\s+longer|anymore|any\s+more)\b|n't\b", re.I
)


def has_negation(sentence: str) -> bool:
    """Grammatical negation (not, never, no longer, -n't…)."""
    return bool(_PLAIN_NEGATION.search(sentence.replace("’", "'")))


_CHANGE = re.compile(
    r"\b(?:moved|move|moving|relocated|relocating|switched|switch|switching|changed|changing|now|nowadays|these\s+days|"
    r"no\s+longer|not\s+anymore|anymore|any\s+more|used\s+to|former|formerly|previously|actually|instead|quit|"
    r"resigned|left\s+my|broke\s+up|divorced|separated|new\s+(?:job|role|position|apartment|house|flat|place|car|phone|"
    r"partner|boyfriend|girlfriend|address|number|city|company|team|school|name)|started\s+(?:a\s+new|at|working)|"
    r"joined|got\s+(?:a\s+new|hired|promoted|married|engaged|divorced)|promoted|became|transferred|sold|"
    r"correction|i\s+meant|not\s+\w+\s+but|rather\s+than|replaced|upgraded|downsized|converted|retired|"
    r"turned\s+\d+|as\s+of|traded|trade\s+in|swapped|got\s+rid\s+of)\b",
    re.I,
)
_RETRACT = re.compile(
    r"\b(?:no\s+longer|not\s+anymore|(?:don't|doesn't|do\s+not|does\s+not|didn't|am\s+not|i'm\s+not|isn't|aren't|"
    r"haven't|hasn't|won't|can't)\b[^.]{0,40}?\b(?:anymore|any\s+more|after\s+all)|stopped|quit|gave\s+up|"
    r"broke\s+up|got\s+rid\s+of|sold|cancel(?:l)?ed|called\s+off|not\s+(?:true|right|correct)|scratch\s+that|"
    r"never\s+mind|ignore\s+what\s+i\s+said|i\s+was\s+wrong|isn't\s+happening|not\s+happening|fell\s+through|"
    r"ended|divorced|moved\s+out|dropped\s+out|lost\s+my)\b",
    re.I,
)


def has_change_cue(sentence: str) -> bool:
    """Cues that a statement supersedes an earlier value (moved, switched, now, no longer, used to…)."""
    return bool(_CHANGE.search(sentence.replace("’", "'")))


def has_retraction_cue(sentence: str) -> bool:
    """Cues that a statement withdraws an earlier one (no longer, … anymore, quit, sold, called off…)."""
    return bool(_RETRACT.search(sentence.replace("’", "'")))


_PREFERENCE = re.compile(
    r"\b(?:love|loves|loved|like|likes|liked|enjoy|enjoys|enjoyed|adore|prefer|prefers|preferred|favou?rite|fave|"
    r"hate|hates|hated|dislike|dislikes|detest|can't\s+stand|cannot\s+stand|not\s+a\s+fan|big\s+fan|fan\s+of|"
    r"obsessed\s+with|into|allergic|intolerant|vegetarian|vegan|can't\s+live\s+without|passionate\s+about|"
    r"rather|go-to|crave|addicted)\b",
    re.I,
)


def is_preference(sentence: str) -> bool:
    """Likes, dislikes, favourites, dietary choices, allergies."""
    return bool(_PREFERENCE.search(sentence.replace("’", "'")))


_PLAN = re.compile(
    r"\b(?:going\s+to|gonna|planning|plan\s+to|plans\s+to|will|i'll|we'll|about\s+to|scheduled|booked|"
    r"tomorrow|next\s+\w+|this\s+(?:weekend|week|month|summer|winter|spring|fall|autumn|evening|afternoon)|"
    r"upcoming|on\s+(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|appointment|deadline|flight|"
    r"trip|wedding|party|interview|exam|concert|leaving|flying|heading|visiting|starting)\b",
    re.I,
)


def has_plan_cue(sentence: str) -> bool:
    """Future plans and scheduled events."""
    return bool(_PLAN.search(sentence.replace("’", "'")))


# ---------------------------------------------------------------------------------------------
# Numbers
# ---------------------------------------------------------------------------------------------

NUMBER_WORDS: dict[str, float] = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "thousand": 1000, "million": 1e6,
    "dozen": 12, "twice": 2, "once": 1, "thrice": 3, "half": 0.5, "couple": 2, "both": 2, "single": 1,
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
    "ninth": 9, "tenth": 10,
}
_CARDINAL = [w for w in NUMBER_WORDS if w not in {"first", "second", "third", "fourth", "fifth", "sixth", "seventh",
                                                 "eighth", "ninth", "tenth", "both", "single", "half", "once"}]
_NUM_WORD_RE = "|".join(sorted(_CARDINAL, key=len, reverse=True))
NUMBER_RE = re.compile(
    rf"(?:[$€£¥]\s?)?\b\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?\b|(?:[$€£¥]\s?)?\b\d+(?:\.\d+)?(?:st|nd|rd|th|k|%)?\b|"
    rf"\b(?:a\s+)?(?:{_NUM_WORD_RE})(?:[\s-]+(?:and\s+)?(?:{_NUM_WORD_RE}))*\b",
    re.I,
)


@dataclass(frozen=True)
class Span:
    """A matched piece of text with its offsets and (for numbers/dates) a parsed value."""

    text: str
    start: int
    end: int
    value: object = None


def parse_number(text: str) -> float | None:
    """"3", "3,000", "$45.50", "twenty-five", "a dozen", "two hundred", "3rd" → a float."""
    t = text.lower().replace(",", "").strip()
    t = re.sub(r"^[$€£¥]\s?", "", t)
    m = re.fullmatch(r"(\d+(?:\.\d+)?)(st|nd|rd|th|k|%)?", t)
    if m:
        v = float(m.group(1))
        return v * 1000 if m.group(2) == "k" else v
    words = [w for w in re.split(r"[\s-]+", t) if w and w not in {"and", "a", "an"}]
    if not words or any(w not in NUMBER_WORDS for w in words):
        return None
    total, cur = 0.0, 0.0
    for w in words:
        v = NUMBER_WORDS[w]
        if v == 100:
            cur = (cur or 1) * 100
        elif v >= 1000:
            total += (cur or 1) * v
            cur = 0
        else:
            cur += v
    return total + cur


def find_numbers(text: str) -> list[Span]:
    """Numbers written as digits or words, with their parsed value. Years inside dates are included."""
    out = []
    for m in NUMBER_RE.finditer(text):
        s = m.group().strip()
        if s.lower() in {"a", "an"}:
            continue
        if re.fullmatch(r"(?i)(?:a\s+)?(?:one|second)", s) and not re.search(r"\b(?:one|second)\s+(?:of|or)\b", text[m.start():m.end() + 4]):
            # "one" / "second" are usually pronoun / "a second" (time); keep only clear counts
            nxt = text[m.end():m.end() + 12].lower()
            if not re.match(r"\s+(?:year|month|week|day|hour|minute|kid|child|son|daughter|dog|cat|time)", nxt):
                continue
        v = parse_number(s)
        if v is None:
            continue
        out.append(Span(s, m.start(), m.end(), v))
    return out


# ---------------------------------------------------------------------------------------------
# Dates
# ---------------------------------------------------------------------------------------------

MONTHS = {m.lower(): i for i, m in enumerate(calendar.month_name) if m}
MONTHS.update({m.lower(): i for i, m in enumerate(calendar.month_abbr) if m})
MONTHS["sept"] = 9
WEEKDAYS = {d.lower(): i for i, d in enumerate(calendar.day_name)}
_MONTH_RE = (r"(?:January|February|March|April|May|June|July|August|September|October|November|December|"
             r"(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\.?)")
_WEEKDAY_RE = r"(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)s?"
_ORD = r"(?:\d{1,2}(?:st|nd|rd|th)?)"
_UNIT = r"(?:days?|nights?|weeks?|weekends?|months?|years?|decades?|hours?|minutes?)"
_COUNT = rf"(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a\s+few|a\s+couple\s+of|several|couple\s+of)"
_SEASON = r"(?:spring|summer|fall|autumn|winter)"
DATE_RE = re.compile(
    rf"\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b\d{{1,2}}/\d{{1,2}}/\d{{2,4}}\b|"
    rf"\b{_MONTH_RE}\s+{_ORD}(?:,?\s+\d{{4}})?\b|\b{_ORD}\s+(?:of\s+)?{_MONTH_RE}(?:,?\s+\d{{4}})?|"
    rf"\b(?:(?:last|next|this|coming|past|early|mid|late|the\s+end\s+of|the\s+beginning\s+of|the\s+start\s+of)[\s-]+)?{_MONTH_RE}(?:,?\s+\d{{4}})?(?![\w'])|"
    rf"\b(?:(?:last|next|this|past|coming)\s+)?{_WEEKDAY_RE}(?:\s+(?:morning|afternoon|evening|night))?\b|"
    rf"\b(?:yesterday|today|tonight|tomorrow|last\s+night|the\s+day\s+before\s+yesterday|the\s+other\s+day)\b|"
    rf"\b(?:last|next|this|past|coming|previous|following)\s+(?:week(?:end)?|month|year|{_SEASON}|morning|afternoon|evening|"
    rf"semester|term|decade|christmas|easter|holidays?)\b|"
    rf"\b{_COUNT}\s+{_UNIT}\s+(?:ago|earlier|later|from\s+now|before|after)\b|\bin\s+{_COUNT}\s+{_UNIT}\b|"
    rf"\b(?:(?:in|during|over|since)\s+)?(?:the\s+)?(?:(?:early|late|mid)[\s-]+)?{_SEASON}(?:\s+(?:of\s+)?(?:19|20)\d{{2}})\b|"
    rf"\b(?:(?:in|since|during|of|by|until|from|around|back\s+in)\s+(?:the\s+)?(?:early\s+|late\s+|mid[\s-])?)(?:19|20)\d{{2}}s?\b|"
    rf"\b(?:19|20)\d{{2}}\b|"
    rf"\b(?:this|last|next|in\s+the)\s+(?:morning|afternoon|evening)\b|"
    rf"\b(?:in|during|over)\s+(?:the\s+)?(?:early\s+|late\s+)?{_SEASON}\b|"
    rf"\b(?:(?:last|this|next|since|before|after|over|at|on|for)\s+)?(?:Christmas|Easter|Thanksgiving|Halloween|"
    rf"Hanukkah|Diwali|Ramadan|Eid|New\s+Year(?:'s)?(?:\s+(?:Eve|Day))?)\b|"
    rf"\b(?:at\s+)?\d{{1,2}}(?::\d{{2}})?\s?(?:am|pm|a\.m\.|p\.m\.)|\b(?:at\s+)?(?:noon|midnight)\b|"
    rf"\b(?:recently|lately|earlier\s+this\s+\w+|a\s+while\s+ago|ages\s+ago|long\s+ago)\b",
    re.I,
)


def find_dates(text: str) -> list[Span]:
    """Date and time expressions: absolute ("3 May 2024", "May 3rd", "2019"), relative
    ("yesterday", "last week", "two months ago"), weekdays, seasons, clock times.

    Month names must be capitalised ("May" the month, not "may" the modal verb)."""
    out: list[Span] = []
    for m in DATE_RE.finditer(text):
        s = m.group()
        if re.search(r"(?i)\b(?:may|march|jan|mar|jun|aug|sept?|oct|nov|dec)\b", s):
            mm = re.search(r"(?i)\b(?:january|february|march|april|may|june|july|august|september|october|november|"
                           r"december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\b", s)
            if mm and not mm.group()[:1].isupper():
                continue
            if mm and mm.group() in {"May", "March"} and mm.start() == 0 and m.start() == 0 and s == mm.group():
                continue  # sentence-initial "May I…" / "March on"
        if re.fullmatch(r"(?:19|20)\d{2}", s):
            # a bare 4-digit number is a year unless it is an amount ("2000 dollars")
            nxt = text[m.end():m.end() + 12].lower()
            prev = text[max(0, m.start() - 2):m.start()]
            if re.match(r"\s*(?:dollars|euros|pounds|people|km|miles|steps|words|calories|\$|k\b)", nxt) or prev.strip() in {"$", "€", "£"}:
                continue
        out.append(Span(s.strip(), m.start(), m.start() + len(s.rstrip())))
    return out


def parse_iso(text: str) -> dt.date | None:
    """The first ISO date (YYYY-MM-DD) in a string."""
    m = re.search(r"(\d{4})-(\d{2})-(\d{2})", text or "")
    if not m:
        return None
    try:
        return dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None


def parse_date_parts(text: str) -> tuple[int | None, int | None, int | None] | None:
    """(year, month, day) of an absolute date expression; missing parts are None.
    "May 3" → (None, 5, 3); "3 May 2024" → (2024, 5, 3); "2019" → (2019, None, None)."""
    t = text.strip()
    iso = parse_iso(t)
    if iso:
        return (iso.year, iso.month, iso.day)
    m = re.search(r"\b(\d{1,2})/(\d{1,2})/(\d{2,4})\b", t)
    if m:  # US order (month/day) unless the first part cannot be a month
        a, b, y = int(m.group(1)), int(m.group(2)), int(m.group(3))
        y = y + 2000 if y < 100 else y
        mo, d = (a, b) if a <= 12 else (b, a)
        return (y, mo, d)
    month = None
    for w in re.findall(r"[A-Za-z]+", t):
        if w.lower() in MONTHS and (w[:1].isupper() or len(w) > 3):
            month = MONTHS[w.lower()]
            break
    year_m = re.search(r"\b(19|20)\d{2}\b", t)
    year = int(year_m.group()) if year_m else None
    day = None
    if month:
        dm = re.search(r"\b(\d{1,2})(?:st|nd|rd|th)?\b(?!\d)", re.sub(r"\b(19|20)\d{2}\b", "", t))
        if dm and 1 <= int(dm.group(1)) <= 31:
            day = int(dm.group(1))
    if year is None and month is None:
        return None
    return (year, month, day)


def format_date(d: dt.date) -> str:
    """"3 May 2024" — day month year, unambiguous in every locale."""
    return f"{d.day} {calendar.month_name[d.month]} {d.year}"


def _count_value(s: str) -> int:
    s = s.lower().strip()
    if s in {"a", "an", "one"}:
        return 1
    if "few" in s or "several" in s:
        return 3
    if "couple" in s:
        return 2
    v = parse_number(s)
    return int(v) if v is not None else 1


def _shift_months(d: dt.date, months: int) -> dt.date:
    y, m = divmod(d.month - 1 + months, 12)
    return dt.date(d.year + y, m + 1, min(d.day, calendar.monthrange(d.year + y, m + 1)[1]))


def resolve_date(expr: str, ref: dt.date | None, direction: int = 0) -> str:
    """Turn a date expression into an answer string, resolving relative ones against ``ref``
    (the date the sentence was written): "yesterday" → "2 May 2024", "last week" → "the week
    before 3 May 2024", "last year" → "2023", "next October" → "October 2024".

    ``direction`` is the sentence's tense (-1 past, +1 future, 0 unknown); it decides which way a
    bare weekday or month points ("on Friday", "in June"). Plural weekdays ("on Wednesdays") are
    habits and stay as written; absolute expressions are returned as written, a month-only date
    gets the year from ``ref``."""
    e = expr.strip().rstrip(".,")
    low = e.lower()
    low = re.sub(r"^(?:in|on|at|since|during|by|until|from|around|back\s+in|over)\s+", "", low)
    plain = re.sub(r"(?i)^(?:in|on|at|since|during|by|until|from|around|back\s+in|over)\s+", "", e)
    if ref is None:
        return plain
    if low in {"today", "tonight", "this morning", "this afternoon", "this evening", "in the morning",
               "in the evening", "in the afternoon"}:
        return format_date(ref)
    if low in {"yesterday", "last night"}:
        return format_date(ref - dt.timedelta(days=1))
    if low == "the day before yesterday":
        return format_date(ref - dt.timedelta(days=2))
    if low == "tomorrow":
        return format_date(ref + dt.timedelta(days=1))
    m = re.fullmatch(r"(?:(last|next|this|past|coming)\s+)?(monday|tuesday|wednesday|thursday|friday|saturday|sunday)(s)?"
                     r"(?:\s+(?:morning|afternoon|evening|night))?", low)
    if m:
        which, day, plural = m.groups()
        if plural:
            return plain
        target = WEEKDAYS[day]
        if which is None:
            which = "last" if direction < 0 else "next" if direction > 0 else None
            if which is None:
                return plain
        if which in {"next", "coming"}:
            delta = (target - ref.weekday()) % 7 or 7
            return format_date(ref + dt.timedelta(days=delta))
        if which in {"last", "past"}:
            delta = (ref.weekday() - target) % 7 or 7
            return format_date(ref - dt.timedelta(days=delta))
        return format_date(ref + dt.timedelta(days=(target - ref.weekday()) % 7))
    m = re.fullmatch(r"(last|past|previous|next|coming|following|this)\s+(week(?:end)?|month|year|spring|summer|fall|autumn|winter)", low)
    if m:
        which, unit = m.groups()
        back = which in {"last", "past", "previous"}
        fwd = which in {"next", "coming", "following"}
        if unit in {"week", "weekend"}:
            if which == "this":
                return f"the {unit} of {format_date(ref)}"
            return f"the {unit} {'before' if back else 'after'} {format_date(ref)}"
        if unit == "month":
            d = _shift_months(ref, -1 if back else 1 if fwd else 0)
            return f"{calendar.month_name[d.month]} {d.year}"
        if unit == "year":
            return str(ref.year - 1 if back else ref.year + 1 if fwd else ref.year)
        season_year = ref.year - 1 if back else ref.year + 1 if fwd else ref.year
        return f"{unit} {season_year}"
    m = re.fullmatch(rf"({_COUNT.lower()})\s+({_UNIT})\s+(ago|earlier|before|later|after|from now)", low)
    if m:
        n = _count_value(m.group(1))
        unit = m.group(2).rstrip("s")
        sign = -1 if m.group(3) in {"ago", "earlier", "before"} else 1
        if unit in {"day", "night"}:
            return format_date(ref + dt.timedelta(days=sign * n))
        if unit == "year":
            return str(ref.year + sign * n)
        if unit == "month":
            d = _shift_months(ref, sign * n)
            return f"{calendar.month_name[d.month]} {d.year}"
        return f"{m.group(1)} {m.group(2)} {'before' if sign < 0 else 'after'} {format_date(ref)}"
    m = re.fullmatch(rf"({_COUNT.lower()})\s+(days?|weeks?|months?|years?)", low)
    if m and e.lower().startswith("in "):  # "in two weeks" = two weeks from now
        return resolve_date(f"{m.group(1)} {m.group(2)} from now", ref)
    m = re.fullmatch(r"(last|next|this|coming|past)\s+([a-z]+)", low)
    if m and m.group(2) in MONTHS:
        which, mon = m.group(1), MONTHS[m.group(2)]
        if which in {"next", "coming"}:
            year = ref.year if mon > ref.month else ref.year + 1
        elif which in {"last", "past"}:
            year = ref.year if mon < ref.month else ref.year - 1
        else:
            year = ref.year
        return f"{calendar.month_name[mon]} {year}"
    parts = parse_date_parts(plain)
    if parts and parts[0] is None and parts[1] is not None:
        mon = parts[1]
        year = ref.year
        if direction > 0 and mon < ref.month:
            year += 1
        elif direction < 0 and mon > ref.month:
            year -= 1
        return f"{plain} {year}" if parts[2] is None else f"{plain}, {year}"
    return plain


_PAST = re.compile(r"\b(?:\w+ed|was|were|had|did|went|got|came|saw|met|made|took|bought|ran|flew|drove|left|began|"
                   r"won|lost|gave|ate|wrote|sold|found|told|spent|ago|yesterday|last)\b", re.I)
_FUTURE = re.compile(r"\b(?:will|'ll|shall|going\s+to|gonna|plan(?:ning)?\s+to|about\s+to|next|upcoming|tomorrow|"
                     r"coming|booked|scheduled|hoping\s+to|intend|am\s+\w+ing|are\s+\w+ing|'m\s+\w+ing|'re\s+\w+ing)\b", re.I)


def tense_direction(sentence: str) -> int:
    """-1 when a sentence talks about the past, +1 about the future, 0 when unclear."""
    s = sentence.replace("’", "'")
    fut, past = bool(_FUTURE.search(s)), bool(_PAST.search(s))
    return 1 if fut and not past else -1 if past and not fut else 0


def is_relative_date(expr: str) -> bool:
    """True for expressions that only mean something relative to when they were said."""
    return bool(re.search(r"(?i)\b(?:yesterday|today|tonight|tomorrow|last|next|this|past|coming|ago|previous|"
                          r"following|from\s+now|in\s+\w+\s+(?:days?|weeks?|months?|years?)|monday|tuesday|"
                          r"wednesday|thursday|friday|saturday|sunday)\b", expr))


# ---------------------------------------------------------------------------------------------
# Names and capitalised phrases
# ---------------------------------------------------------------------------------------------

_NOT_NAMES = frozenset(
    """i i'm i've i'd i'll im the a an and but or so if oh ok okay yes no yeah hi hello hey thanks thank my our your
    his her their its we you he she they it this that these those there here what when where who why how which
    today yesterday tomorrow tonight also actually just well anyway btw lol haha sure maybe perhaps honestly
    christmas easter monday tuesday wednesday thursday friday saturday sunday january february march april may
    june july august september october november december feb apr aug sept oct nov dec
    mr mrs ms dr user assistant tool system last next after before since then now recently lately ugh ooh meh
    phew yay omg oops whoa gosh geez jeez wow lol haha hmm""".split()
)
_COMMON_STARTERS = frozenset(
    """got went had made took bought saw met ran spent found left started finished moved loved picked just finally
    recently still also maybe please let sorry thanks glad hope love like need want think know guess feel seems
    sounds looks been being going getting doing having planning trying working living honestly basically anyway
    guess what yes yeah no nope sure cool great awesome nice wow oh hey hi hello ok okay well so and but or because
    then now today tonight tomorrow yesterday every each some many most few all both either neither""".split()
)
_NAME_LINK = frozenset("of de da do del della di la le van von der den du st st. upon y".split())


def find_capitalized(text: str) -> list[Span]:
    """Capitalised word runs that look like names ("Lake Tahoe", "Mr. Okafor", "Rio de Janeiro").

    The first word of a sentence counts only when it is not a common word; months, weekdays,
    pronouns and greetings never start a name. Honorifics (Mr./Dr./…) are kept with the name."""
    out: list[Span] = []
    toks = list(re.finditer(r"[^\W\d_][\w'’.-]*", text))
    i = 0
    n = len(toks)
    while i < n:
        t = toks[i].group().rstrip(".")
        low = t.lower().replace("’", "'")
        base = re.sub(r"'s$", "", low)
        if not t[:1].isupper():
            i += 1
            continue
        honor = base in {"mr", "mrs", "ms", "dr", "prof", "st", "mt", "aunt", "uncle", "grandma", "grandpa"}
        sentence_start = i == 0 or re.search(r"[.!?:;\"“]\s*$", text[: toks[i].start()]) is not None
        if (base in _NOT_NAMES and not honor) or (sentence_start and (
                base in STOPWORDS | GENERIC or (len(base) > 4 and base.endswith(("ed", "ing", "ly")))
                or base in _COMMON_STARTERS)):
            i += 1
            continue
        j = i + 1
        last = i
        while j < n:
            gap = text[toks[j - 1].end(): toks[j].start()]
            if gap.strip() not in {"", "-"}:
                break
            w = toks[j].group().rstrip(".")
            wl = w.lower()
            if toks[j - 1].group().endswith(".") and toks[j - 1].group().rstrip(".").lower() not in {
                    "mr", "mrs", "ms", "dr", "prof", "st", "mt", "jr"} and len(toks[j - 1].group()) > 2:
                break  # "Tahoe. Rio" — a sentence ended
            if w[:1].isupper() and wl not in _NOT_NAMES - {"may", "march", "june", "july", "august"}:
                last = j
                j += 1
                if re.search(r"'s$", w.lower()):
                    break
            elif wl in _NAME_LINK and j + 1 < n and toks[j + 1].group()[:1].isupper():
                j += 1
            else:
                break
        start = toks[i].start()
        end = toks[last].end()
        s = text[start:end].rstrip(".")
        s = re.sub(r"['’]s$", "", s)
        if honor and last == i:
            i += 1
            continue
        out.append(Span(s, start, start + len(s)))
        i = last + 1
    return out


# ---------------------------------------------------------------------------------------------
# Speakers and context lines
# ---------------------------------------------------------------------------------------------

def parse_speaker(speaker: str) -> tuple[str, str | None]:
    """"user: Maria" → ("user", "Maria"); "user" → ("user", None); "tool: weather" → ("tool",
    "weather"); a bare name ("Maria") → ("user", "Maria") — a human participant."""
    s = str(speaker or "").strip()
    role, _, name = s.partition(":")
    role, name = role.strip(), name.strip() or None
    low = role.lower()
    if low in {"user", "human", "assistant", "ai", "bot", "system", "tool", "function", "developer"}:
        if low in {"ai", "bot"}:
            low = "assistant"
        if low in {"function"}:
            low = "tool"
        if low == "human":
            low = "user"
        return low, name
    if not s:
        return "user", None
    return "user", s


_LINE_DATE = re.compile(r"^\s*[\[(]\s*(\d{4}-\d{2}-\d{2})(?:[ T][\d:.]+)?(?:[^\])]{0,20})?[\])]\s*")
_LINE_SPEAKER = re.compile(r"^([^\W\d][\w .'’()-]{0,40}?)\s*:\s+(?=\S)")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d{1,3}[.)])\s+")


def parse_line(line: str) -> tuple[dt.date | None, str | None, str]:
    """Split a context/memory line into (date, speaker, text).

    Understands "[2024-05-03] Maria: text", "- user: text", "Maria (user): text", "(2024-05-03) text".
    The speaker prefix must be short (≤ 4 words) so "Note: …" style labels count as speakers but
    ordinary sentences with a colon do not lose their start."""
    s = _BULLET.sub("", line.strip())
    date = None
    m = _LINE_DATE.match(s)
    if m:
        date = parse_iso(m.group(1))
        s = s[m.end():]
    speaker = None
    m = _LINE_SPEAKER.match(s)
    if m and len(m.group(1).split()) <= 4 and not re.match(r"(?i)(?:https?|note that)$", m.group(1)):
        speaker = m.group(1).strip()
        s = s[m.end():]
    return date, speaker, s.strip()


# ---------------------------------------------------------------------------------------------
# Slots: (subject, predicate, object) keys used to tell an update from a new fact
# ---------------------------------------------------------------------------------------------

_SLOT_LEXICON: list[tuple[str, re.Pattern[str]]] = [
    ("name", re.compile(r"\b(?:my\s+name\s+is|my\s+name's|call\s+me|i\s+go\s+by|(?:i'm|i\s+am)\s+called)\b", re.I)),
    ("age", re.compile(r"\b(?:\w+\s+years?\s+old|turned\s+\w+|my\s+age|aged\s+\d+|"
                       r"(?:i'm|i\s+am|he's|she's|he\s+is|she\s+is)\s+(?:\d{1,3}|twenty|thirty|forty|fifty|sixty|"
                       r"seventy|eighty|ninety)(?:[\s-]\w+)?\s*(?:now)?\s*[.!]?$)", re.I)),
    ("birthday", re.compile(r"\b(?:birthday|born\s+on)\b", re.I)),
    ("residence", re.compile(r"\b(?:live|lives|living|lived|reside|resides|residing|based\s+in|moved|move|moving|"
                             r"rent|rents|renting|rented|own\s+(?:flat|house|place|apartment|home)|keys\s+to|"
                             r"relocated?|relocating|settled\s+in|new\s+(?:apartment|flat|house|place|address)|home\s+is)\b", re.I)),
    ("origin", re.compile(r"\b(?:grew\s+up|born\s+in|i'm\s+from|i\s+am\s+from|originally\s+from|hometown)\b", re.I)),
    ("job", re.compile(r"\b(?:work|works|working|worked|job|employed|employer|hired|career|profession|occupation|"
                       r"position|promoted|quit|resigned|retired|intern(?:ship)?|started\s+at|joined|chef|nurse|"
                       r"teacher|engineer|developer|designer|manager|doctor|lawyer|accountant|barista|waiter|waitress|"
                       r"cashier|analyst|consultant|freelanc\w*)\b|"
                       r"\b(?:i'm|i\s+am|she's|he's|she\s+is|he\s+is)\s+an?\s+(?=\w+(?:er|or|ist|ian|ant|ent|nurse|chef|"
                       r"doctor|lawyer|engineer|teacher)\b)", re.I)),
    ("partner", re.compile(r"\b(?:married|wife|husband|spouse|girlfriend|boyfriend|partner|fianc[eé]e?|dating|engaged|"
                           r"divorced|broke\s+up|single)\b", re.I)),
    ("diet", re.compile(r"\b(?:vegetarian|vegan|pescatarian|keto|gluten[\s-]free|eat\s+meat|diet)\b", re.I)),
    ("study", re.compile(r"\b(?:study|studies|studying|studied|major(?:ing)?|degree|university|college|school|phd|"
                         r"master's|bachelor's|graduat\w*)\b", re.I)),
    ("vehicle", re.compile(r"\b(?:drive|drives|driving|drove|my\s+car|new\s+car)\b", re.I)),
]
_FAV = re.compile(r"\bfavou?rite\s+([a-z]+(?:\s+[a-z]+)?)", re.I)
FUNCTIONAL = frozenset({"name", "age", "birthday", "residence", "origin", "job", "partner", "diet", "study", "vehicle"})


@dataclass(frozen=True)
class Slot:
    """What a statement is about: whose (subject), which relation (predicate), of what (obj).

    ``functional`` predicates hold one value at a time (where someone lives, their job, their
    favourite X, how many Y they have): a different value means an update, not a new fact."""

    subject: str
    predicate: str
    obj: str = ""
    functional: bool = False


_SUBJ_WORDS = {"i", "i'm", "i've", "i'd", "i'll", "me", "my", "we", "we're", "we've", "our", "us", "mine"}
_VERBLIKE_SKIP = STOPWORDS | {"currently", "now", "recently", "finally", "officially", "also", "still", "already",
                              "always", "never", "usually", "often", "totally", "definitely", "basically", "really"}


def slot_of(text: str) -> Slot:
    """Best-effort (subject, predicate, object) of a statement — general cues, no parsing."""
    _, speaker, body = parse_line(text)
    t = strip_interjections(body.replace("’", "'"))
    toks = tokenize(t)
    subject = "self"
    rel = re.search(r"\b(?:my|our)\s+((?:\w+\s+)?(" + "|".join(sorted(RELATION_NOUNS, key=len, reverse=True)) + r"))\b(?:'s)?", t, re.I)
    first_subj = bool(toks) and (toks[0] in _SUBJ_WORDS or _FIRST_SUBJECT.match(t) is not None)
    if rel and (not first_subj or t.lower().lstrip().startswith(("my ", "our "))):
        subject = stem(rel.group(2).lower())
    elif toks and not first_subj:
        caps = find_capitalized(t)
        if caps and caps[0].start <= 2:
            subject = caps[0].text.lower()
        elif toks[0] in {"he", "she", "they", "he's", "she's", "they're"}:
            subject = toks[0].split("'")[0]
    if speaker and subject == "self":
        subject = f"self:{speaker.lower()}"
    fav = _FAV.search(t)
    if fav:
        noun = [w for w in fav.group(1).lower().split() if w not in STOPWORDS and w not in {"is", "are"}]
        return Slot(subject, "favorite", stem(noun[0]) if noun else "", True)
    for name, pat in _SLOT_LEXICON:
        if pat.search(t):
            return Slot(subject, name, "", name in FUNCTIONAL)
    # counts: "I have three kids" → (self, have, kid) functional
    for num in find_numbers(t):
        if re.match(r"\s*(?:[:/.-]\d|am\b|pm\b|%)", t[num.end:]) or num.value in range(1900, 2100):
            continue  # times, dates, percentages, years are not counts
        after = tokenize(t[num.end:])[:2]
        nouns = []
        for w in after:  # "three kids", "two old cats"; not "number 5 in Paris"
            if w in STOPWORDS:
                break
            nouns.append(w)
        nouns = nouns[-1:]
        before = tokenize(t[: num.start])
        verb = next((stem(w) for w in reversed(before) if w not in _VERBLIKE_SKIP and w not in _SUBJ_WORDS), "")
        # "I have three kids" / "we own 2 cars": how many of something one *has* is single-valued;
        # "I loved the 5 paintings" is not
        possessive = any(w in {"have", "has", "had", "own", "owns", "got", "raise", "raising", "keep", "keeps"}
                         for w in before[-3:]) or bool(nouns and nouns[0].rstrip("s") in RELATION_NOUNS)
        if nouns and possessive:
            return Slot(subject, "count", stem(nouns[0]), True)
    # generic: first non-function word after the subject is the predicate head, next content word the object
    words = [w for w in toks if w not in _SUBJ_WORDS]
    content = [w for w in words if w not in _VERBLIKE_SKIP]
    pred = stem(content[0]) if content else ""
    obj = stem(content[1]) if len(content) > 1 else ""
    return Slot(subject, pred, obj, False)


# ---------------------------------------------------------------------------------------------
# Synonyms (general English relations between everyday topics)
# ---------------------------------------------------------------------------------------------

SYNONYM_GROUPS: tuple[tuple[str, ...], ...] = (
    ("live", "reside", "home", "based", "stay", "move", "relocate", "settle", "apartment", "flat", "house"),
    ("work", "job", "employ", "employer", "career", "profession", "occupation", "company", "office", "hire",
     "position", "role", "boss", "colleague", "coworker", "freelance", "remote", "client", "salary", "shift",
     "chef", "nurse", "teacher", "engineer", "developer", "designer", "manager", "doctor", "lawyer", "accountant",
     "barista", "waiter", "waitress", "cashier", "analyst", "consultant", "intern", "internship", "promote",
     "promotion", "lead", "title"),
    ("partner", "wife", "husband", "spouse", "girlfriend", "boyfriend", "fiance", "fiancee", "married", "marry",
     "dating", "wedding"),
    ("kid", "child", "son", "daughter", "baby", "toddler", "twins", "newborn", "boy", "girl"),
    ("mom", "mother", "dad", "father", "parent"),
    ("brother", "sister", "sibling", "twin"),
    ("pet", "dog", "cat", "puppy", "kitten", "tabby"),
    ("car", "drive", "vehicle", "truck", "bike", "motorbike", "ride", "scooter", "bicycle", "cycle"),
    ("transport", "ferry", "train", "bus", "boat", "taxi", "cab", "tram", "metro", "subway", "flight", "plane",
     "drive", "ride", "walk", "travel", "commute"),
    ("favorite", "love", "like", "prefer", "enjoy", "best", "fan"),
    ("dislike", "hate", "detest", "loathe", "despise", "stand"),
    ("food", "eat", "dish", "meal", "cuisine", "cook", "restaurant", "dinner", "lunch", "breakfast"),
    ("drink", "beverage", "coffee", "tea", "beer", "wine"),
    ("study", "school", "university", "college", "degree", "major", "student", "class", "course", "learn", "lesson",
     "master", "bachelor", "phd", "thesis", "attend", "enrol", "enroll", "semester", "campus"),
    ("teach", "subject", "class", "teacher", "lesson"),
    ("music", "song", "band", "listen", "album", "concert", "singer", "artist"),
    ("instrument", "play", "guitar", "piano", "violin", "drum", "cello", "banjo", "ukulele", "saxophone", "flute"),
    ("book", "read", "novel", "author", "reading"),
    ("movie", "film", "watch", "show", "series", "cinema"),
    ("sport", "play", "team", "game", "match", "football", "soccer", "basketball", "tennis", "climb", "boulder",
     "ski", "surf", "golf", "rugby", "cricket", "volleyball", "hockey", "baseball", "boxing", "cycling", "rowing"),
    ("travel", "trip", "visit", "vacation", "holiday", "fly", "flight", "journey", "tour", "abroad", "go"),
    ("fly", "flight", "pilot", "plane", "airline", "airport"),
    ("hobby", "pastime", "enjoy", "fun", "spare", "free"),
    ("age", "old", "born", "birthday", "turn", "year"),
    ("name", "call", "named", "called"),
    ("buy", "purchase", "pick", "order", "shop", "acquire"),
    ("pay", "cost", "price", "spend", "expensive", "cheap", "dollar", "euro", "pound", "money"),
    ("allergic", "allergy", "intolerant", "intolerance", "react"),
    ("sick", "ill", "illness", "doctor", "hospital", "surgery", "diagnose", "condition", "injury", "injure", "hurt",
     "tear", "sprain", "fracture", "accident", "physio", "physiotherapy", "recover", "wound", "bruise"),
    ("exercise", "run", "jog", "gym", "workout", "train", "fitness", "marathon", "hike", "swim", "yoga"),
    ("language", "speak", "fluent", "learn"),
    ("meet", "see", "visit", "hang"),
    ("start", "begin", "launch", "open", "join", "sign"),
    ("finish", "complete", "end", "done", "graduate"),
    ("friend", "buddy", "pal", "bestie"),
    ("commute", "bike", "drive", "train", "bus", "walk", "subway"),
    ("volunteer", "charity", "donate", "help"),
    ("garden", "plant", "grow", "flower", "vegetable"),
    ("paint", "draw", "art", "sketch", "artist", "painting"),
    ("town", "city", "village", "place", "country", "location", "where"),
    ("adopt", "rescue", "get", "shelter"),
    ("write", "author", "blog", "journal", "poem", "story"),
)


@lru_cache(maxsize=1)
def _synonym_index() -> dict[str, frozenset[str]]:
    idx: dict[str, set[str]] = {}
    for group in SYNONYM_GROUPS:
        stems = {stem(w) for w in group}
        for st in stems:
            idx.setdefault(st, set()).update(stems)
    return {k: frozenset(v - {k}) for k, v in idx.items()}


def synonyms(word_stem: str) -> frozenset[str]:
    """Stems related to ``word_stem`` through :data:`SYNONYM_GROUPS` (the stem itself excluded)."""
    return _synonym_index().get(word_stem, frozenset())
