import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.index import docids
from graphmem.index.docids import DocIds

ops = st.lists(st.tuples(st.sampled_from(["append", "extend", "forget"]), st.integers(0, 30)), max_size=120)


@pytest.mark.parametrize("colliding", [False, True])
@settings(max_examples=150, deadline=None)
@given(steps=ops)
def test_both_ways_agree_with_a_list_and_a_dict(steps, colliding):
    """Whatever the adds and forgets, folded or recent, and even when every id hashes alike."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(docids, "FOLD_AT", 4)
        patch.setattr(docids, "MANY_FROM", 3)  # (numpy for three ids or more)
        if colliding:
            patch.setattr(docids, "hash", lambda text: len(text) % 3, raising=False)
        ids, listed, numbers = DocIds(), [], {}
        for op, k in steps:
            name = f"ev_{k:0{k % 5 + 1}d}"
            if op == "append" and name not in numbers:
                assert ids.append(name) == len(listed)
                numbers[name] = len(listed)
                listed.append(name)
            elif op == "extend":  # this name and the next few, those without a number, at once
                names = [n for j in range(k, k + 1 + k % 7) if (n := f"ev_{j:0{j % 5 + 1}d}") not in numbers]
                assert ids.extend(names) == len(listed)
                numbers.update(zip(names, range(len(listed), len(listed) + len(names))))
                listed.extend(names)
            elif op == "forget":
                ids.forget(name)
                numbers.pop(name, None)
        assert len(ids) == len(listed) and ids.tolist() == listed
        assert all(ids[n] == name for n, name in enumerate(listed))
        asked = [f"ev_{k:0{width}d}" for k in range(38) for width in range(1, 6)]
        for name in asked:
            assert ids.get(name) == numbers.get(name)
            assert (name in ids) == (name in numbers)
        assert ids.get_many(asked) == [numbers.get(name) for name in asked]
        for again in (DocIds(ids.tolist()), DocIds.from_encoded(ids.encoded())):  # as a saved index loads
            assert again.tolist() == listed  # and every id maps to its latest number
            assert all(again.get(name) == max(n for n, i in enumerate(listed) if i == name) for name in listed)


def test_a_long_id_widens_the_store_and_keeps_the_others():
    ids = DocIds(["ev_1", "st_2"])
    long = "ev_" + "x" * 80
    assert ids.append(long) == 2
    assert ids.tolist() == ["ev_1", "st_2", long] and ids.get(long) == 2 and ids.get("st_2") == 1


def test_a_number_out_of_range_is_an_index_error():
    ids = DocIds(["ev_1"])
    with pytest.raises(IndexError):
        ids[1]


def test_the_encoded_ids_are_a_read_only_view_not_a_copy():
    """What a save writes: at a million ids a copy would cost ~40 MB at the moment memory peaks."""
    ids = DocIds(["ev_1", "st_22", "ev_333"])
    encoded = ids.encoded()
    assert np.shares_memory(encoded, ids._ids) and not encoded.flags.writeable
    assert DocIds.from_encoded(encoded).tolist() == ["ev_1", "st_22", "ev_333"]


def test_ids_added_at_once_widen_the_array_and_grow_it():
    ids = DocIds()
    ids.append("ev_a")
    long = "st_" + "x" * 60
    many = [f"ev_{i}" for i in range(3000)]
    assert ids.extend([long, *many]) == 1 and ids.extend([]) == 3002
    assert ids[1] == long and ids[3001] == "ev_2999" and ids[0] == "ev_a"
    assert ids.get_many([long, "ev_a", "ev_5", "nope"]) == [1, 0, 7, None]
