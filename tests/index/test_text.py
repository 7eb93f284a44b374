import pytest

from graphmem.index import text
from graphmem.index.text import japanese_splitter, tokens


def test_english_words_are_stemmed_and_function_words_dropped():
    assert tokens("When did Caroline go to the support groups?") == ["carolin", "go", "support", "group"]
    assert tokens("supported") == tokens("supports") == ["support"]


def test_case_width_and_punctuation_do_not_matter():
    assert tokens("ACME Inc.") == tokens("acme inc") == tokens("ＡＣＭＥ　ｉｎｃ")


def test_numbers_stay_whole():
    assert tokens("room 101 in 2025") == ["room", "101", "2025"]


def test_the_word_memo_stays_bounded_and_changes_no_term():
    words = [f"word{chr(97 + i % 26)}{chr(97 + i // 26 % 26)}ing" for i in range(300)]
    expected = [tokens(w) for w in words]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(text, "TERMS_KEPT", 50)
        patch.setattr(text, "_TERMS", {})
        again = [tokens(w) for w in words] + [tokens(w) for w in words]
        assert len(text._TERMS) <= 50
    assert again == expected + expected
    assert tokens("the 123456 running") == ["123456", "run"] and "123456" not in text._TERMS


def test_japanese_inside_a_sentence_is_split_into_findable_terms():
    sentence = tokens("先週、田中さんと東京で会った")
    assert set(tokens("東京")) <= set(sentence)
    assert set(tokens("田中")) <= set(sentence)


def test_mixed_language_text_keeps_both():
    found = tokens("Meeting with 田中 about the 東京オフィス move")
    assert "meet" in found and "move" in found
    assert set(tokens("東京")) <= set(found)


def test_sudachi_splits_words_when_installed():
    split = japanese_splitter()
    if split is None:
        pytest.skip("sudachipy is not installed (the ja extra); character pairs are used instead")
    assert "東京" in split("東京オフィスに移転した")


@pytest.mark.parametrize(("sentence", "names"), [
    ('I just watched "Little Women" and loved it', True),  # a quoted title
    ("We finally read “The Hobbit” together", True),  # curly quotes
    ("I'm playing Apex Legends tonight", True),  # capitalised words inside a sentence
    ("my favourite is Battlefield 1 by far", True),  # a word and a number
    ("Harry Potter and Game of Thrones are amazing", True),  # a run opening the text
    ("Loved it. Game of Thrones is back", True),  # a run opening a later sentence
    ("We adopted a puppy called Pixie.", True),  # called / named / titled
    ("the band is named Muse", True),
    ("昨日『君の名は』を観た", True),  # a Japanese title
    ("Thanks, Joanna! See you soon.", False),  # one capitalised word: the person spoken to
    ("Hey Joanna! Long time no talk.", False),  # a greeting
    ("deploy review budget called off until next sprint", False),  # "called" but no name after it
    ("nothing here is capitalised at all", False),
])
def test_names_a_title(sentence: str, names: bool) -> None:
    assert text.names_a_title(sentence) is names
