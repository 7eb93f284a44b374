import pytest

from graphmem.index.text import japanese_splitter, tokens


def test_english_words_are_stemmed_and_function_words_dropped():
    assert tokens("When did Caroline go to the support groups?") == ["carolin", "go", "support", "group"]
    assert tokens("supported") == tokens("supports") == ["support"]


def test_case_width_and_punctuation_do_not_matter():
    assert tokens("ACME Inc.") == tokens("acme inc") == tokens("ＡＣＭＥ　ｉｎｃ")


def test_numbers_stay_whole():
    assert tokens("room 101 in 2025") == ["room", "101", "2025"]


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
