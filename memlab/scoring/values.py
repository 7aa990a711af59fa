"""Value normalisation: text → canonical tokens in which one value has one spelling.

Gold answers and the text they are looked for in (context, answer, turns) go through the same
:func:`canonical_tokens`, so "8 May 2023" finds "[2023-05-08] …", "three" finds "3" and
"5 kilometres" finds "5 km" without either side being rewritten by hand. The rules are fixed,
general and documented in ``docs/metrics.md``; they were written from the formats themselves,
never tuned on evaluation data.

Canonical forms:

* **Dates** become ``<year> m<MM> d<DD>`` (``2023 m05 d08``); month-year becomes ``2023 m05``,
  day-month without a year ``m05 d08``; a bare year stays ``2023``. Because a coarser date is a
  prefix or sub-sequence of a finer one, a gold "May 2023" or "2023" is found in "8 May 2023".
  A full month name on its own is ``m<MM>`` ("May"/"March" only when capitalised: they are
  also verbs).
  Numeric dates ``a/b/yyyy`` (also ``.`` or ``-``) are read day-first or month-first only when
  that is unambiguous (one field above 12, or both equal); otherwise they are left as three
  plain numbers, which match only the same literal numbers.
* **Numbers**: thousands separators dropped (``1,200`` → ``1200``), leading zeros and trailing
  decimal zeros dropped, ordinal suffixes dropped (``3rd`` → ``3``), cardinal number words
  converted (``twenty-one`` → ``21``, ``one hundred and five`` → ``105``), ``%`` → ``percent``.
* **Units** written out after a number take their symbol (``kilometres`` → ``km``,
  ``kilograms`` → ``kg``, ``hours`` → ``h``...); symbols stay as they are.
* Everything else follows SQuAD: lower case, punctuation is a separator, articles dropped.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date
from functools import lru_cache

from dateutil.parser import parserinfo

_MONTH_INFO = parserinfo()
_MONTH_NAMES = sorted({name.lower() for names in _MONTH_INFO.MONTHS for name in names}, key=len, reverse=True)
_MONTH = r"(?:" + "|".join(_MONTH_NAMES) + r")\.?"
_FULL_MONTHS = [names[-1].lower() for names in _MONTH_INFO.MONTHS]
assert min(map(len, _MONTH_NAMES)) >= 3
_MONTH_START = r"(?=" + "|".join(sorted({name[:3] for name in _MONTH_NAMES})) + r")"
"""A lookahead every month name passes (its first three letters): a word that is no month skips the
month branches at its first letters instead of trying each of their ~24 names (the same matches)."""
_ORD = r"(?:st|nd|rd|th)?"
_DAY = r"(\d{1,2})" + _ORD
_YEAR = r"(\d{4})"

# Alternatives are tried left to right at each position: the longest date shapes first, then
# numbers, then words; anything else (punctuation, symbols) separates tokens.
_TOKEN = re.compile(
    r"(?P<iso>\b(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})\b)"
    rf"|(?P<numdate>\b(\d{{1,2}})([-/.])(\d{{1,2}})\7(\d{{4}})\b)"
    rf"|(?P<dmy>\b{_DAY}(?:\s+of)?\s+({_MONTH})(?:,?\s+{_YEAR})?(?![\w]))"
    rf"|(?P<mdy>\b{_MONTH_START}({_MONTH})\s+{_DAY}(?:,?\s+{_YEAR})?(?![\w]))"
    rf"|(?P<my>\b{_MONTH_START}({_MONTH}),?\s+{_YEAR}\b)"
    r"|(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?:st|nd|rd|th)?"
    r"|(?P<pct>%)"
    rf"|(?P<month>\b{_MONTH_START}(?:{'|'.join(_FULL_MONTHS)})\b)"
    r"|(?P<word>[^\W\d_]+)",
    re.IGNORECASE,
)

_ARTICLES = frozenset({"a", "an", "the"})

_UNITS = {
    "km": ("kilometre", "kilometres", "kilometer", "kilometers", "kms"),
    "m": ("metre", "metres", "meter", "meters"),
    "cm": ("centimetre", "centimetres", "centimeter", "centimeters"),
    "mm": ("millimetre", "millimetres", "millimeter", "millimeters"),
    "mi": ("mile", "miles"),
    "ft": ("foot", "feet"),
    "in": ("inch", "inches"),
    "kg": ("kilogram", "kilograms", "kilo", "kilos", "kgs"),
    "g": ("gram", "grams", "gramme", "grammes"),
    "lb": ("lbs",),
    "l": ("litre", "litres", "liter", "liters"),
    "ml": ("millilitre", "millilitres", "milliliter", "milliliters"),
    "h": ("hour", "hours", "hr", "hrs"),
    "min": ("minute", "minutes", "mins"),
    "s": ("second", "seconds", "sec", "secs"),
}
_UNIT_OF = {word: symbol for symbol, words in _UNITS.items() for word in words}

_SMALL = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen".split())}
_TENS = {w: 10 * (i + 2) for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split())}
_SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_NUMBER_WORDS = frozenset(_SMALL) | frozenset(_TENS) | frozenset(_SCALES)


def _month(name: str) -> int:
    number = _MONTH_INFO.month(name.rstrip("."))
    if number is None:  # unreachable: the pattern only admits dateutil's own month names
        raise ValueError(f"not a month name: {name!r}")
    return int(number)


def _date_tokens(year: int | None, month: int, day: int | None) -> list[str] | None:
    """Canonical tokens of a (partial) date, or None when it is not a real calendar date."""
    if not 1 <= month <= 12:
        return None
    if day is not None:
        try:
            date(year or 2000, month, day)  # 2000 is a leap year: 29 Feb without a year is fine
        except ValueError:
            return None
    out = [str(year)] if year is not None else []
    out.append(f"m{month:02d}")
    if day is not None:
        out.append(f"d{day:02d}")
    return out


_VERB_MONTHS = frozenset({"may", "march"})
_ORDINAL_OR_OF = re.compile(r"\d(?:st|nd|rd|th)\b|\bof\b", re.IGNORECASE)


def _verb_not_month(span: str, month_name: str, year: str | None) -> bool:
    """"may 5" / "march 3" without a year is read as a date only with an ordinal or "of"
    ("May 5th", "5th of March"): otherwise the word is as likely the verb ("you may 2 ...")."""
    return year is None and month_name.rstrip(".").lower() in _VERB_MONTHS and not _ORDINAL_OR_OF.search(span)


def _number(text: str) -> str:
    """``1,200.50`` → ``1200.5``; ``007`` → ``7``."""
    text = text.replace(",", "")
    if "." in text:
        whole, frac = text.split(".", 1)
        frac = frac.rstrip("0")
        whole = whole.lstrip("0") or "0"
        return f"{whole}.{frac}" if frac else whole
    return text.lstrip("0") or "0"


_NEEDS_PATTERNS = re.compile(r"[\d%]|(?=[" + "".join(sorted({m[0] for m in _FULL_MONTHS})) + "])(?:"
                             + "|".join(_FULL_MONTHS) + ")", re.IGNORECASE)
"""What only :data:`_TOKEN`'s date, number, percent and month branches can match: every one of them
needs a digit, a percent sign or a full month name (the lookahead on a month's first letter only
prunes: the search is ~3x faster and finds the same)."""
_WORD = re.compile(r"[^\W\d_]+")
""":data:`_TOKEN`'s word branch alone."""
_HARD_BREAK = re.compile(r"[^\w\s\-/.,%]+")
r"""Characters no token contains (every branch of :data:`_TOKEN` matches only word characters,
whitespace, ``-/.,`` and ``%``) and that are no word character: ``[``, ``]``, ``:``, quotes,
brackets... A token never spans one, and ``\b`` / ``(?![\w])`` read the same beside one as at the
end of a string, so the pieces between them can be tokenised one by one."""


def _raw_tokens(text: str) -> list[str]:
    """The raw tokens of ``text``: what :func:`_pattern_tokens` gives it, ~2.5x faster on conversation
    and context lines. Trying every branch of :data:`_TOKEN` at every word was most of the time that
    scoring and ceilings spent, yet most words are plain: a piece of the text without a digit, a
    percent sign or a month name holds words only, and its tokens are its letter runs, lowercased. The
    text is cut at :data:`_HARD_BREAK` characters (a context line's ``[2024-02-01] Ana:`` prefix is
    its own piece), and only pieces that need them go through the patterns (tests/test_scoring_values.py
    compares the two on every short suite's lines and on made-up ones)."""
    if _NEEDS_PATTERNS.search(text) is None:
        return [w.lower() for w in _WORD.findall(text)]
    out: list[str] = []
    for piece in _HARD_BREAK.split(text):
        if _NEEDS_PATTERNS.search(piece) is None:
            out += [w.lower() for w in _WORD.findall(piece)]
        else:
            out += _pattern_tokens(piece)
    return out


def _pattern_tokens(text: str) -> list[str]:
    out: list[str] = []
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        if kind == "word":  # most tokens, even here
            out.append(m.group().lower())
            continue
        g = m.groups()
        if kind == "iso":
            toks = _date_tokens(int(g[1]), int(g[2]), int(g[3]))
            out += toks if toks else [_number(g[1]), _number(g[2]), _number(g[3])]
        elif kind == "numdate":
            a, b, year = int(g[5]), int(g[7]), int(g[8])
            if a == b or (a > 12 and b <= 12):
                toks = _date_tokens(year, b, a)
            elif b > 12 and a <= 12:
                toks = _date_tokens(year, a, b)
            else:
                toks = None  # ambiguous day/month order: keep the literal numbers
            out += toks if toks else [str(a), str(b), str(year)]
        elif kind == "dmy":
            day, month, year = int(g[10]), _month(g[11]), g[12]
            toks = None if _verb_not_month(m.group(0), g[11], year) else _date_tokens(int(year) if year else None, month, day)
            out += toks if toks else [str(day), g[11].rstrip(".").lower(), *([year] if year else [])]
        elif kind == "mdy":
            month, day, year = _month(g[14]), int(g[15]), g[16]
            toks = None if _verb_not_month(m.group(0), g[14], year) else _date_tokens(int(year) if year else None, month, day)
            out += toks if toks else [g[14].rstrip(".").lower(), str(day), *([year] if year else [])]
        elif kind == "my":
            out += _date_tokens(int(g[19]), _month(g[18]), None) or []
        elif kind == "num":
            out.append(_number(m.group("num")))
        elif kind == "pct":
            out.append("percent")
        else:  # month
            name = m.group("month")
            verb = name.lower() in _VERB_MONTHS and not name[0].isupper()
            out += [name.lower()] if verb else _date_tokens(None, _month(name), None) or [name.lower()]
    return out


def _fold_number_words(tokens: list[str]) -> list[str]:
    """Runs of cardinal number words → one numeral ("twenty one" → "21", "one hundred and five"
    → "105"); "and" joins only inside a run, and "one two" stays two numbers.

    The tokens between runs are copied in slices (a long context has thousands of tokens and a
    few number words)."""
    starts = [k for k, t in enumerate(tokens) if t in _NUMBER_WORDS]
    if not starts:
        return list(tokens)
    out: list[str] = []
    i = 0
    for start in starts:
        if start < i:
            continue  # inside the run just folded
        out.extend(tokens[i:start])
        i = start
        total = current = 0
        j = end = i
        while j < len(tokens):
            t = tokens[j]
            below_hundred = current % 100
            if t in _SMALL and (below_hundred == 0 or (below_hundred >= 20 and below_hundred % 10 == 0)):
                current += _SMALL[t]
            elif t in _TENS and below_hundred == 0:
                current += _TENS[t]
            elif t == "hundred" and below_hundred == current:
                current = (current or 1) * 100
            elif t in _SCALES and t != "hundred":
                total += (current or 1) * _SCALES[t]
                current = 0
            elif t == "and" and j > i and j + 1 < len(tokens) and (tokens[j + 1] in _SMALL or tokens[j + 1] in _TENS):
                j += 1
                continue
            else:
                break
            j += 1
            end = j
        out.append(str(total + current))
        i = end
    out.extend(tokens[i:])
    return out


def _units(tokens: list[str]) -> list[str]:
    """A unit word after a number becomes its symbol. (The token before a unit word is never one
    that was itself replaced by a symbol unless it was a unit word, and neither is a number.)"""
    out = list(tokens)
    for k in [k for k, t in enumerate(tokens) if t in _UNIT_OF]:
        if k and tokens[k - 1].replace(".", "", 1).isdigit():
            out[k] = _UNIT_OF[tokens[k]]
    return out


_SAFE_BREAK = re.compile(r"\n(?=\s*[^\w\s])")
"""A line break after which no token can continue: the next visible character is neither a letter
nor a digit, and every token pattern that spans whitespace continues with one (a month, "of", a
day or a year)."""


@lru_cache(maxsize=1 << 16)
def _line_tokens(line: str) -> tuple[str, ...]:
    return tuple(_raw_tokens(line))


def canonical_tokens(text: str | None) -> list[str]:
    """The canonical token sequence of ``text`` (see the module docstring for the rules).

    The raw tokens are read line by line wherever no token can span the break (see
    ``_SAFE_BREAK``), and each line's are memoised: the same lines come back in context after
    context (a full history's ~600 in each of ~200 probes), and reading a long context whole was
    most of the time spent scoring a LoCoMo-sized run. Same tokens as reading it whole."""
    if not text:
        return []
    t = unicodedata.normalize("NFKC", str(text)).replace("’", "'").replace("‘", "'")
    tokens = [tok for line in _SAFE_BREAK.split(t) for tok in _line_tokens(line) if tok not in _ARTICLES]
    return _units(_fold_number_words(tokens))


@lru_cache(maxsize=2048)
def canonical(text: str | None) -> str:
    """:func:`canonical_tokens` joined by single spaces (the form containment is checked on).

    Cached: one probe's context is looked in for every gold form, superseded and forbidden value."""
    return " ".join(canonical_tokens(text))
