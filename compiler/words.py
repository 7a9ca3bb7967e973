"""Values in words: the one way every stage writes a value for a reader or for JSON.

Three pure functions, used by the resolver's messages and answers, the example runner, the
reports and the site:

* :func:`value_words` — any plain value as the language writes it (yes / no / none, a
  whole number, a fraction ``3/2``, a target ``4+``, a label);
* :func:`number_words` — a number as a reader likes it: a short fraction with its decimal,
  or a decimal alone when the fraction is long;
* :func:`fraction_json` — an exact probability or mean for JSON: ``"n/d"``, or the float's
  ``repr`` for an answer of the float backend.

And the website's number style (documented on the site's language reference, "Numbers on the
website"), where a reader sees no long fraction in running text:

* :func:`chance_words` — a chance as a percentage: whole percents from 10%, one decimal below
  10%, two below 1%, and ``never`` / ``always`` for exactly 0 and 1 when asked;
* :func:`mean_words` — an average to two decimals (a whole number stays whole);
* :func:`exact_words` — the exact fraction, for a tooltip or an expanded detail;
* :func:`plural` — a count with its noun, singular for one;
* :func:`agree` — a name with its verb, singular or plural as the name is ("Orks go", "Red
  force goes"); :func:`a_or_an` — a phrase after the article that fits it.

>>> from fractions import Fraction
>>> value_words(True), value_words(None), value_words(Fraction(6, 4)), value_words(Fraction(4, 2))
('yes', 'none', '3/2', '2')
>>> number_words(Fraction(25, 18))
'25/18 (≈ 1.38889)'
>>> fraction_json(Fraction(1, 2)), fraction_json(0.25)
('1/2', '0.25')
"""
from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction

__all__ = ["a_or_an", "agree", "chance_words", "decimal", "exact_words", "fraction_json", "mean_words", "number_words", "plural",
           "value_words"]


def a_or_an(phrase: str) -> str:
    """``phrase`` after the indefinite article that fits it: the one place messages pick a/an.

    By sound: a vowel letter takes "an", except words that start with a "you" or "one"
    sound; an abbreviation in capitals is spelt out letter by letter ("an 'S'", "a 'BS'").

    >>> [a_or_an(w) for w in ("attack", "unit", "table", "ability", "hour", "one-off", "'AP'", "'BS'", "yes/no value")]
    ['an attack', 'a unit', 'a table', 'an ability', 'an hour', 'a one-off', "an 'AP'", "a 'BS'", 'a yes/no value']
    """
    core = phrase.lstrip("'\"`(")
    first = core.split(" ", 1)[0].strip("'\"`),.:")
    if not first:
        return "a " + phrase
    if first.isupper() and first.isalpha():  # an abbreviation: spelt out
        vowel = first[0] in "AEFHILMNORSX"
    else:
        word = first.lower()
        vowel = (word[0] in "aeiou" and not word.startswith(_A_BEFORE_VOWEL)) or word.startswith(_AN_BEFORE_CONSONANT)
    return ("an " if vowel else "a ") + phrase


#: Words that start with a vowel letter but a consonant sound ("a unit", "a one-off").
_A_BEFORE_VOWEL = ("uni", "use", "usu", "one", "eu", "ufo")
#: Words that start with a consonant letter but a vowel sound ("an hour", "an honest").
_AN_BEFORE_CONSONANT = ("hour", "honest", "honour", "honor", "heir")


def value_words(v: object) -> str:
    """A plain value as the language writes it.

    >>> [value_words(v) for v in (False, 3, Fraction(1, 3), "long")]
    ['no', '3', '1/3', 'long']
    """
    if isinstance(v, Fraction):
        if max(v.numerator.bit_length(), v.denominator.bit_length()) > _PRINTABLE_BITS:
            return f"≈ {decimal(v)}"
        return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"
    if v is None:
        return "none"
    if v is True:
        return "yes"
    if v is False:
        return "no"
    return str(v)


def number_words(v: object) -> str:
    """A number as a reader likes it: a short fraction with its decimal, or a decimal.

    >>> number_words(Fraction(3)), number_words(Fraction(1, 3)), number_words(Fraction(1, 10**7 + 1))
    ('3', '1/3 (≈ 0.333333)', '≈ 1e-07')
    >>> number_words(0.1 + 0.2), number_words(False)
    ('0.3', 'no')
    """
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, Fraction):
        if v.denominator == 1:
            return str(v.numerator)
        dec = decimal(v)
        if v.denominator < 10**6:
            return f"{v.numerator}/{v.denominator} (≈ {dec})"
        return f"≈ {dec}"
    if isinstance(v, float):
        return f"{v:.10g}"
    return value_words(v)


def _float(v: Fraction | float | int) -> float:
    try:
        return float(v)
    except OverflowError:  # a whole number or a fraction past a float's range (about 1.8e308)
        return math.inf


def decimal(v: Fraction | float | int, spec: str = ".6g") -> str:
    """``v`` as a decimal (six significant digits), of any size: a float's range ends near
    1.8e308 (and a fraction below 1e-308 would read 0), so past it the decimal is worked out exactly.

    >>> decimal(Fraction(1, 3)), decimal(Fraction(10**400 + 1, 3)), decimal(Fraction(1, 10**400)), decimal(0)
    ('0.333333', '3.33333e+399', '1e-400', '0')
    """
    f = _float(v)
    if isinstance(v, float) or (math.isfinite(f) and (f != 0 or v == 0)):
        return format(f, spec)
    exact = Fraction(v)
    with localcontext() as ctx:
        ctx.prec = 20
        return format(Decimal(exact.numerator) / Decimal(exact.denominator), spec)


def full_number_words(v: object) -> str:
    """A number in full, to be pasted back into an expectation: a fraction as ``n/d`` however
    long (with its decimal), where :func:`number_words` would shorten it.

    >>> full_number_words(Fraction(1, 10**7 + 1)), full_number_words(Fraction(2, 3)), full_number_words(Fraction(4))
    ('1/10000001 (≈ 1e-07)', '2/3 (≈ 0.666667)', '4')
    """
    if isinstance(v, Fraction) and v.denominator != 1 and len(str(v.denominator)) <= 4000:
        return f"{v.numerator}/{v.denominator} (≈ {decimal(v)})"
    if isinstance(v, float):
        return repr(v)
    return number_words(v)


def fraction_json(p: Fraction | float | int) -> str:
    """An exact probability or mean for JSON in its canonical form: ``"n/d"`` in lowest terms, a
    whole number alone (``"7"``, ``"1"``, ``"0"``; ``Fraction("7")`` reads it back); a float
    answer as its ``repr``.

    A fraction whose numbers run over 4,000 digits (too long to print) is given as a float.

    >>> fraction_json(Fraction(35, 216)), fraction_json(Fraction(2)), fraction_json(Fraction(1)), fraction_json(1)
    ('35/216', '2', '1', '1.0')
    >>> fraction_json(Fraction(1, 6**6000))
    '0.0'
    """
    if isinstance(p, Fraction):
        if max(p.numerator.bit_length(), p.denominator.bit_length()) <= _PRINTABLE_BITS:
            return str(p.numerator) if p.denominator == 1 else f"{p.numerator}/{p.denominator}"
    f = _float(p)
    return repr(f) if math.isfinite(f) else decimal(p, ".17g")


def chance_words(p: Fraction | float | None, words: bool = False) -> str:
    """A chance as a percentage; with ``words``, exactly 0 and 1 read ``never`` and ``always``.

    >>> [chance_words(Fraction(n, 6)) for n in (0, 1, 3, 6)]
    ['0%', '17%', '50%', '100%']
    >>> chance_words(Fraction(1, 36)), chance_words(Fraction(1, 216)), chance_words(Fraction(1, 10**6))
    ('2.8%', '0.46%', '<0.01%')
    >>> chance_words(Fraction(0), words=True), chance_words(1.0, words=True), chance_words(0.99999)
    ('never', 'always', '>99.99%')
    """
    if p is None:
        return ""
    if words and p == 0:
        return "never"
    if words and p == 1:
        return "always"
    x = float(p) * 100
    if x == 0:
        return "0%" if p == 0 else "<0.01%"
    if 99.995 <= x < 100:
        return ">99.99%"
    if x >= 10 or x == round(x):
        return f"{x:.0f}%"
    if x >= 1:
        return f"{x:.1f}%"
    if x >= 0.01:
        return f"{x:.2f}%"
    return "<0.01%"


def mean_words(m: Fraction | float | int | None) -> str:
    """An average to two decimals; a whole number without any.

    >>> mean_words(Fraction(80, 27)), mean_words(Fraction(6)), mean_words(Fraction(1, 2)), mean_words(2.0)
    ('2.96', '6', '0.50', '2')
    """
    if m is None:
        return ""
    if isinstance(m, bool):
        return "yes" if m else "no"
    if isinstance(m, Fraction) and m.denominator == 1:
        return str(m.numerator)
    if isinstance(m, int):
        return str(m)
    if not math.isfinite(f := _float(m)):
        return decimal(m)  # past a float's range
    if f == int(f):
        return str(int(m))
    return f"{f:.2f}"


def exact_words(v: Fraction | float | int | None) -> str:
    """The exact value for a tooltip or an expanded detail: ``25/18``, or the decimal of a float.

    >>> exact_words(Fraction(25, 18)), exact_words(Fraction(4, 2)), exact_words(0.125)
    ('25/18', '2', '0.125')
    """
    if v is None:
        return ""
    if isinstance(v, Fraction):
        return value_words(v)
    return f"{v:.10g}"


def plural(n: int, one: str, many: str | None = None) -> str:
    """``n`` with its noun: ``1 note``, ``2 notes``, ``0 open questions``.

    >>> plural(1, "note"), plural(3, "note"), plural(2, "open question"), plural(1, "child", "children")
    ('1 note', '3 notes', '2 open questions', '1 child')
    """
    word = one if n == 1 else (many if many is not None else one + "s")
    return f"{n} {word}"
def is_plural(name: str) -> bool:
    """Whether a name (a side's or a unit's title) is plural: its last word ends in a plural "s"
    ("Orks", "Space Marines", "Line Troopers"), or is one of the plurals without one ("Boyz").

    >>> [is_plural(n) for n in ("Orks", "Red force", "The Bastion", "Space Marines", "Ork Boyz", "Chaos", "Grass")]
    [True, False, False, True, True, False, False]
    """
    words = name.strip().split()
    if not words:
        return False
    last = words[-1].strip(".,;:!?)\"'").lower()
    if last in _PLURALS_WITHOUT_S:
        return True
    return last.endswith("s") and not last.endswith(_SINGULAR_ENDINGS) and last not in _SINGULAR_IN_S


def agree(subject: str, singular: str, plural_verb: str) -> str:
    """``subject`` with the form of the verb that agrees with it.

    >>> agree("Orks", "goes", "go"), agree("Red force", "goes", "go"), agree("Space Marines", "wins", "win")
    ('Orks go', 'Red force goes', 'Space Marines win')
    """
    return f"{subject} {plural_verb if is_plural(subject) else singular}"


#: Last words that are plural without an "s", and words in "s" that are singular.
_PLURALS_WITHOUT_S = ("boyz", "men", "folk", "people", "gitz", "ladz", "grots", "children", "troops", "dice")
_SINGULAR_ENDINGS = ("ss", "us", "is", "os")
_SINGULAR_IN_S = ("chaos", "corps", "series", "species", "bus", "gas", "lens", "news")


#: Bits of the longest whole number printed in full (Python refuses to print over 4,300 digits).
_PRINTABLE_BITS = 13_000
