"""Words for the lexical index: one tokeniser for documents and queries, English and Japanese.

Latin-script text is lower-cased, split on letters and digits, stripped of common function words and
stemmed (Snowball), so "supported" finds "support". Japanese has no spaces: runs of kana and kanji are split
with Sudachi when it is installed (the ``ja`` extra), else into overlapping character pairs, which find any
word of two or more characters inside a sentence. Both documents and queries go through the same function,
so whichever splitter is active, they agree.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from functools import lru_cache

import Stemmer

__all__ = ["STOP_WORDS", "japanese_splitter", "names_a_title", "tokens"]

# Function words that carry no topic; question words are here too ("when", "what"), since a question's
# form says nothing about which memory answers it.
STOP_WORDS = frozenset(
    ["a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "me", "more", "most", "my", "myself", "no", "nor", "not", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own", "same", "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours", "yourself", "yourselves", "s", "t", "don", "ll", "m", "re", "ve", "d", "also", "get", "got", "really", "yeah", "oh", "wow", "hey", "hi", "lol", "ok", "okay"]
)

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
# a title or a name: a quoted phrase that starts with a capital ("Little Women"), capitalised words run
# together ("playing Apex Legends", "watched The Wheel of Time", "Battlefield 1"; opening a sentence, unless
# the run opens with a greeting or "I": "Harry Potter and Game of Thrones are amazing", not "Hey Joanna",
# "Thanks Nate"), what follows "called", "named" or "titled", or a Japanese title in 『』. One capitalised word
# inside a sentence is most often the person spoken to ("Thanks, Joanna!"): not enough alone.
_GREETINGS = ("Hey|Hi|Hello|Thanks|Thank|Wow|Oh|Yes|Yeah|Congrats|Congratulations|Good|Great|Happy|Hope|Nice|"
              "Sorry|Bye|Love|Welcome|Dear|Awesome|Cool|Ok|Okay|Sure|Haha|Aww|Woah|Whoa|Yay|I")
_RUN_REST = r"(?:\s+(?:of|the|and|de|\d+|[A-Z][\w']*))*\s+(?:[A-Z][\w']*|\d+)\b"
# (every alternative starts at a quote, a capital or "『": the lookahead in front lets the engine skip the
# other positions at once, ~3x faster on chat turns; "called", "named" and "titled" have a pattern of their
# own, tried only when the text holds one of the words: in the same pattern, the lookahead stopped at every
# "c", "n" and "t", and the search took twice as long)
_TITLE = re.compile(
    r"(?=[A-Z\"“『])(?:[\"“][A-Z][^\"”\n]{0,80}[\"”]"
    r"|(?<![.!?:]\s)(?<![.!?:])(?<!^)\b(?:[A-Z][a-z]+|[A-Z]{2,}\d*)" + _RUN_REST
    + rf"|(?:^|(?<=[.!?:]\s))(?!(?:{_GREETINGS})\b)[A-Z][a-z]+"
    r"(?:\s+(?:of|the|and|\d+|[A-Z][\w']*))*\s+(?!I\b)[A-Z][\w']*"
    r"|『[^』]+』)"
)
_CALLED = re.compile(r"\b(?:called|named|titled)\s+[A-Z]\w+")
_JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff66-\uff9f々〆ー]+")
_stemmer = Stemmer.Stemmer("english")


_TERMS: dict[str, str] = {}  # word -> its index term ("" for a stop word): one lookup a word
TERMS_KEPT = 200_000  # words remembered; past that the memo starts afresh (numbers are never kept)


def tokens(text: str) -> list[str]:
    """The index terms of ``text``, in order.

    >>> tokens("Caroline went to the LGBTQ support groups yesterday")
    ['carolin', 'went', 'lgbtq', 'support', 'group', 'yesterday']
    >>> tokens("東京オフィス")[:3]  # without Sudachi: overlapping pairs
    ['東京', '京オ', 'オフ']
    """
    out: list[str] = []
    if text.isascii():  # (NFKC leaves ASCII as it is, and no Japanese is in it)
        _latin(text.lower(), out)
        return out
    normal = unicodedata.normalize("NFKC", text).lower()
    position = 0
    for match in _JAPANESE.finditer(normal):
        _latin(normal[position:match.start()], out)
        out.extend(_split_japanese()(match.group()))
        position = match.end()
    _latin(normal[position:], out)
    return out


def names_a_title(text: str) -> bool:
    """Whether ``text`` names a title or a name: a book, a film, a game, a band, a pet.

    >>> names_a_title('I just watched "Little Women" and loved it'), names_a_title("I'm playing Apex Legends")
    (True, True)
    >>> names_a_title("We adopted a puppy called Pixie."), names_a_title("Thanks, Joanna! See you soon.")
    (True, False)
    >>> names_a_title("Harry Potter is great."), names_a_title("Hey Joanna! Long time no talk.")
    (True, False)
    """
    return _TITLE.search(text) is not None or (
        ("called" in text or "named" in text or "titled" in text) and _CALLED.search(text) is not None
    )


def _latin(text: str, out: list[str]) -> None:
    known = _TERMS.get
    for word in _WORD.findall(text):
        term = known(word)
        if term is None:
            term = _term(word)
        if term:
            out.append(term)


def _term(word: str) -> str:
    """The index term of a lower-cased word: its stem, itself (numbers, other scripts), or "" (stop words)."""
    if word.isdigit():
        return word
    term = "" if word in STOP_WORDS else str(_stemmer.stemWord(word)) if word.isascii() else word
    if len(_TERMS) >= TERMS_KEPT:
        _TERMS.clear()
    _TERMS[word] = term
    return term


def _bigrams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i:i + 2] for i in range(len(run) - 1)]


@lru_cache(maxsize=1)
def _split_japanese() -> Callable[[str], list[str]]:
    return japanese_splitter() or _bigrams


def japanese_splitter() -> Callable[[str], list[str]] | None:
    """Sudachi's word splitter (mode C, dictionary forms) when installed, else None."""
    try:
        from sudachipy import Dictionary, SplitMode
    except ImportError:
        return None
    tokenizer = Dictionary().create()

    def split(run: str) -> list[str]:
        words = [m.normalized_form() for m in tokenizer.tokenize(run, SplitMode.C)]
        return [w for w in words if w.strip()] or [run]

    return split
