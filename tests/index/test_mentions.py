from array import array

from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.index.mentions import Mentions

NAMES = st.sampled_from(["ent_a", "ent_b", "ent_c", "ent_d", "ent_e"])
OPS = st.lists(st.one_of(
    st.tuples(st.just("append"), st.lists(NAMES, max_size=4)),
    st.tuples(st.just("add"), st.integers(0, 50), NAMES),
    st.tuples(st.just("rename"), NAMES, NAMES),
), max_size=60)


@settings(max_examples=200, deadline=None)
@given(OPS)
def test_mentions_answer_like_a_tuple_per_document(ops):
    mentions, model = Mentions(), []
    docs_of: dict[str, array] = {}  # what the search index keeps beside it, as it does
    for op in ops:
        if op[0] == "append":
            named = tuple(dict.fromkeys(op[1]))
            for name in named:
                docs_of.setdefault(name, array("i")).append(len(model))
            model.append(named)
            mentions.append(op[1])
        elif op[0] == "add" and op[1] < len(model):
            doc, name = op[1], op[2]
            if name not in model[doc]:
                model[doc] = (*model[doc], name)
                docs_of.setdefault(name, array("i")).append(doc)
            mentions.add(doc, name)
        elif op[0] == "rename" and op[1] != op[2]:
            merged, kept = op[1], op[2]
            model = [tuple(dict.fromkeys(kept if e == merged else e for e in named)) for named in model]
            moved = docs_of.pop(merged, array("i"))
            target = docs_of.setdefault(kept, array("i"))
            target.extend(d for d in moved if d not in set(target))
            mentions.rename(merged, kept)
    assert len(mentions) == len(model)
    assert [mentions.of(d) for d in range(len(model))] == model
    rebuilt = Mentions.from_docs(len(model), docs_of)  # what a saved index loads: the same sets
    assert [set(rebuilt.of(d)) for d in range(len(model))] == [set(named) for named in model]


def test_an_index_with_no_entities_rebuilds_empty():
    assert [Mentions.from_docs(3, {}).of(d) for d in range(3)] == [(), (), ()]
