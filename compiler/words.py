"""Values in words: the one way every stage writes a value for a reader or for JSON.

Three pure functions, used by the resolver's messages and answers, the example runner, the
reports and the site:

* :func:`value_words` — any plain value as the language writes it (yes / no / none, a
  whole number, a fraction ``3/2``, a target ``4+``, a label);
* :func:`number_words` — a number as a reader likes it: a short fraction with its decimal,
  or a decimal alone when the fraction is long;
* :func:`fraction_json` — an exact probability or mean for JSON: ``"n/d"``, or the float's
  ``repr`` for an answer of the float backend.

>>> from fractions import Fraction
>>> value_words(True), value_words(None), value_words(Fraction(6, 4)), value_words(Fraction(4, 2))
('yes', 'none', '3/2', '2')
>>> number_words(Fraction(25, 18))
'25/18 (≈ 1.38889)'
>>> fraction_json(Fraction(1, 2)), fraction_json(0.25)
('1/2', '0.25')
"""
from __future__ import annotations

from fractions import Fraction

__all__ = ["a_or_an", "fraction_json", "number_words", "value_words"]


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
            return f"≈ {float(v):.6g}"
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
        dec = f"{float(v):.6g}"
        if v.denominator < 10**6:
            return f"{v.numerator}/{v.denominator} (≈ {dec})"
        return f"≈ {dec}"
    if isinstance(v, float):
        return f"{v:.10g}"
    return value_words(v)


def fraction_json(p: Fraction | float | int) -> str:
    """An exact probability or mean for JSON (``"n/d"``); a float answer as its ``repr``.

    A fraction whose numbers run over 4,000 digits (too long to print) is given as a float.

    >>> fraction_json(Fraction(35, 216)), fraction_json(Fraction(2)), fraction_json(1)
    ('35/216', '2/1', '1.0')
    >>> fraction_json(Fraction(1, 6**6000))
    '0.0'
    """
    if isinstance(p, Fraction):
        if max(p.numerator.bit_length(), p.denominator.bit_length()) <= _PRINTABLE_BITS:
            return f"{p.numerator}/{p.denominator}"
    return repr(float(p))


#: Bits of the longest whole number printed in full (Python refuses to print over 4,300 digits).
_PRINTABLE_BITS = 13_000
