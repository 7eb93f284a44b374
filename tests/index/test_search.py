"""The search index beside a database: saved, caught up after a crash, rebuilt when missing."""

import datetime as dt
import json
import shutil
import time

import numpy as np
import pytest

from graphmem import Memory
from graphmem.index import SearchIndex, static_model_built

UTC = dt.UTC


def refs(hits):
    return [r for h in hits for r in h.refs]


def fill(mem, n=5):
    for i in range(n):
        mem.record(content=f"note {i} about the garden project", occurred_at=f"2025-11-{i + 1:02d}",
                   source={"system": "test", "ref": f"n{i}"}, extract=False)


def test_index_is_saved_on_close_and_reloaded(tmp_path):
    path = tmp_path / "m.kuzu"
    with Memory.open(path, embedder="none") as mem:
        fill(mem)
    assert (tmp_path / "m.kuzu.index" / "meta.json").is_file()
    loaded = SearchIndex.load(tmp_path / "m.kuzu.index", None)
    assert loaded is not None and len(loaded) == 5
    with Memory.open(path, embedder="none") as mem:
        assert sorted(refs(mem.recall("garden project", k=10))) == [f"n{i}" for i in range(5)]


def test_an_index_that_lists_its_ids_in_its_metadata_still_loads(tmp_path):
    # earlier versions saved the ids as a list in meta.json, not as a bytes array beside the columns
    path = tmp_path / "m.kuzu"
    with Memory.open(path, embedder="none") as mem:
        fill(mem)
        ids = mem.index.ids.tolist()
    directory = tmp_path / "m.kuzu.index"
    meta = json.loads((directory / "meta.json").read_text())
    with np.load(directory / "columns.npz") as saved:
        columns = {name: saved[name] for name in saved.files if name != "ids"}
    np.savez(directory / "columns.npz", **columns)
    (directory / "meta.json").write_text(json.dumps({**meta, "ids": ids}))
    loaded = SearchIndex.load(directory, None)
    assert loaded is not None and loaded.ids.tolist() == ids and loaded.ids.get(ids[3]) == 3


def reloaded_notes(tmp_path, n):
    """The saved index of a memory of ``n`` notes with no thread and no vector, loaded."""
    with Memory.open(tmp_path / "m.kuzu", embedder="none") as mem:
        mem.record_many([{"content": f"note {i} about the garden", "occurred_at": "2025-11-01", "extract": False}
                         for i in range(n)])
    loaded = SearchIndex.load(tmp_path / "m.kuzu.index", None)
    assert loaded is not None and len(loaded) == n
    return loaded


def test_an_index_larger_than_its_unset_columns_reloads_without_a_rebuild(tmp_path):
    # no thread and no vector for any document: those columns never grow past their first room (1,024)
    reloaded_notes(tmp_path, 1100)


def test_a_loaded_index_leaves_a_quarter_of_room_not_as_much_again(tmp_path):
    loaded = reloaded_notes(tmp_path, 4000)
    assert len(loaded._time.data) == len(loaded.ids._ids) == len(loaded.lexical._lengths) == 5000
    loaded.add([])  # nothing added: nothing grown
    assert len(loaded._time.data) == 5000


def test_writes_after_the_last_save_are_caught_up_on_open(tmp_path):
    path = tmp_path / "m.kuzu"
    with Memory.open(path, embedder="none") as mem:
        fill(mem, 2)
    mem = Memory.open(path, embedder="none")
    mem.record(content="a late note about the garden", source={"system": "test", "ref": "late"}, extract=False)
    mem.store.close()  # the process dies: the index is not saved
    with Memory.open(path, embedder="none") as again:
        assert "late" in refs(again.recall("late garden note", k=3))


def test_a_deleted_or_damaged_index_is_rebuilt_from_the_database(tmp_path):
    path = tmp_path / "m.kuzu"
    with Memory.open(path, embedder="none") as mem:
        fill(mem)
    (tmp_path / "m.kuzu.index" / "columns.npz").write_bytes(b"not numpy")
    with Memory.open(path, embedder="none") as mem:
        assert len(mem.recall("garden", k=10)) == 5

    shutil.rmtree(tmp_path / "m.kuzu.index")
    with Memory.open(path, embedder="none") as mem:
        assert len(mem.recall("garden", k=10)) == 5


def test_an_index_saved_beside_another_database_or_a_newer_one_is_rebuilt(tmp_path, caplog):

    path = tmp_path / "m.kuzu"
    with Memory.open(path, embedder="none") as mem:
        fill(mem, 3)
        mem.backup(tmp_path / "older.kuzu")
        fill(mem, 5)  # (n3, n4 are newer than the copy)
    for leftover in (".journal", ".recovery", ".recovery.mark"):
        (tmp_path / f"m.kuzu{leftover}").unlink()
    shutil.copy(tmp_path / "older.kuzu", path)  # the older copy put back (its journal gone with the rest)
    with Memory.open(path, embedder="none") as mem:
        assert "rebuilding it" in caplog.text
        assert sorted(refs(mem.recall("garden project", k=10))) == ["n0", "n1", "n2"]
        assert mem.index.status().documents == 3
    caplog.clear()
    with Memory.open(path, embedder="none") as mem:  # its own index now: loaded as it is
        assert "rebuilding" not in caplog.text and mem.index.status().documents == 3
    for leftover in ("", ".journal", ".recovery", ".recovery.mark"):
        (tmp_path / f"m.kuzu{leftover}").unlink()
    with Memory.open(path, embedder="none") as mem:  # a new database beside it
        assert mem.recall("garden project", k=10) == [] and mem.index.status().documents == 0


def test_reindex_gives_the_same_answers(tmp_path):
    with Memory.open(tmp_path / "m.kuzu", embedder="none") as mem:
        fill(mem)
        before = [(h.id, h.score) for h in mem.recall("note about garden", k=5)]
        status = mem.reindex()
        assert status.documents == 5 and status.degraded
        assert [(h.id, h.score) for h in mem.recall("note about garden", k=5)] == before


def _about(mem, name):
    flags = mem.index.about([mem.resolve_entity(name)]) & mem.index.allowed(include_private=True)
    return sorted(mem.index.ids[d] for d in flags.nonzero()[0])


def test_what_each_document_is_about_is_saved_rebuilt_and_merged(tmp_path):
    path = tmp_path / "m.kuzu"
    with Memory.open(path, embedder="none") as mem:
        said = mem.record(content="Melanie: I painted the lake again.", entities=["Melanie"]).id
        told = mem.record(content="Caroline: Thanks, Melanie! Love it.", entities=["Caroline"]).id
        by_alias = mem.record(content="Mel: off to swim.", entities=["@mel"]).id
        state = mem.assert_state("Melanie", "likes", "painting").id
        mem.merge_entities("Melanie", "mel")
        incremental = _about(mem, "Melanie")
        assert said in incremental and state in incremental and told not in incremental
        assert by_alias in incremental  # the merged entity's documents are about the kept one
        assert _about(mem, "Caroline") == [told]
    with Memory.open(path, embedder="none") as mem:  # saved and loaded
        assert _about(mem, "Melanie") == incremental
        mem.reindex()  # rebuilt from the database
        assert _about(mem, "Melanie") == incremental
        assert _about(mem, "Caroline") == [told]


def _found_by(mem, words):
    docs, _ = mem.index.search_words(words, k=10, allowed=mem.index.allowed(include_private=True))
    return sorted(mem.index.ids[int(d)] for d in docs)


def test_a_merged_entitys_states_are_found_by_the_kept_name_live_caught_up_and_rebuilt(tmp_path):
    """A state is found by its subject's and object's names; after a merge they are the kept entity's, as
    a rebuilt index has them. An open whose saved index predates the merge catches up on it."""
    path = tmp_path / "m.kuzu"
    with Memory.open(path, embedder="none", extract=False) as mem:
        lives = mem.assert_state("Di Park", "lives_in", "Lisbon").id
        likes = mem.assert_state("Bo Lind", "likes", "Di Park").id
        mem.assert_state("Ann Berg", "works_at", "Acme")
        mem.index.save()
        saved = tmp_path / "before-merge"
        shutil.copytree(tmp_path / "m.kuzu.index", saved)
        mem.merge_entities("Ann Berg", "Di Park")
        assert {lives, likes} <= set(_found_by(mem, "berg")) and _found_by(mem, "lisbon") == [lives]
        live = _found_by(mem, "berg")
    shutil.rmtree(tmp_path / "m.kuzu.index")
    shutil.copytree(saved, tmp_path / "m.kuzu.index")
    with Memory.open(path, embedder="none", extract=False) as mem:  # caught up from before the merge
        assert _found_by(mem, "berg") == live and mem.index.merged == {"di-park"}
        mem.reindex()
        assert _found_by(mem, "berg") == live


def test_which_documents_name_a_title_is_kept_saved_and_rebuilt(tmp_path):
    path = tmp_path / "m.kuzu"

    def titled(mem):
        return sorted(mem.index.ids[d] for d in np.flatnonzero(mem.index.titled(np.arange(len(mem.index)))))

    with Memory.open(path, embedder="none") as mem:
        watched = mem.record(content='Joanna: I just watched "Little Women" and loved it.', extract=False).id
        mem.record(content="Joanna: Thanks, Nate! See you soon.", extract=False)
        pup = mem.record(content="Audrey: we adopted another puppy called Pixie.", extract=False).id
        kept = titled(mem)
        assert kept == sorted([watched, pup])
    with Memory.open(path, embedder="none") as mem:  # saved and loaded
        assert titled(mem) == kept
        mem.reindex()  # rebuilt from the database
        assert titled(mem) == kept


def test_retracted_states_leave_the_index(tmp_path):
    with Memory.open(tmp_path / "m.kuzu", embedder="none") as mem:
        ev = mem.record(content="Peter lives in Marrakesh.", extract=False)
        state = mem.assert_state(subject="Peter", predicate="lives_in", object="Marrakesh", evidence=[ev.id])
        assert state.id in [h.id for h in mem.recall("Peter Marrakesh", k=5)]
        mem.retract_state(state.id, reason="wrong person")
        assert state.id not in [h.id for h in mem.recall("Peter Marrakesh", k=5)]
    with Memory.open(tmp_path / "m.kuzu", embedder="none") as mem:
        assert state.id not in [h.id for h in mem.recall("Peter Marrakesh", k=5)]


@pytest.fixture
def static_model():
    if not static_model_built():
        pytest.skip("the static model is not built; `make test` builds it with `graphmem models build`")
    return "static"


def test_vectors_are_saved_and_waiting_documents_are_embedded_after_reopen(tmp_path, static_model):
    path = tmp_path / "m.kuzu"
    with Memory.open(path, embedder=static_model) as mem:
        fill(mem)
        mem.index.wait()
        status = mem.index_status()
        assert status.vectors == 5 and status.lag == 0 and not status.degraded
    with Memory.open(path, embedder=static_model) as mem:
        assert mem.index_status().vectors == 5
        hit = mem.recall("cultivating plants in the yard", k=1, preset="semantic")[0]
        assert hit.parts["vector"] > 0


def test_each_documents_words_are_kept_beside_its_vector_saved_reloaded_and_rebuilt(tmp_path, static_model):
    path = tmp_path / "m.kuzu"
    texts = ["we planted tomatoes in the garden", "the budget review is on friday", "!!!",
             "a long hike up the mountain trail"]
    query = "vegetables and hiking"

    def matches(mem):
        index = mem.index
        docs = np.array([index.ids.get(e.id) for e in events], np.int64)
        return index.word_match(query, docs).tolist()

    with Memory.open(path, embedder=static_model) as mem:
        events = [mem.record(content=t, source={"system": "test", "ref": f"w{i}"}, extract=False)
                  for i, t in enumerate(texts)]
        mem.index.wait()
        want = mem.index.embedder.word_match(query, *mem.index.embedder.word_rows(texts)).tolist()
        assert matches(mem) == want and want[2] == 0.0 and max(want) > 0
        later = mem.record(content="tomatoes again", extract=False)
        assert matches(mem) == want  # written later, elsewhere in the word buffer: the others unchanged
    with Memory.open(path, embedder=static_model) as mem:  # saved on close, loaded on open
        assert matches(mem) == want
        mem.reindex()
        mem.index.wait()
        assert matches(mem) == want
        assert mem.index.word_match(query, np.array([mem.index.ids.get(later.id)], np.int64))[0] > 0


def test_a_different_embedder_rebuilds_the_vectors(tmp_path, static_model):
    path = tmp_path / "m.kuzu"
    with Memory.open(path, embedder="none") as mem:
        fill(mem)
    with Memory.open(path, embedder=static_model) as mem:
        mem.index.wait()
        assert mem.index_status().vectors == 5


def test_close_stops_embedding_after_the_batch_in_hand_and_keeps_the_rest_waiting(tmp_path, static_model):
    path = tmp_path / "m.kuzu"
    n = 3000
    mem = Memory.open(path, embedder=static_model)
    mem.record_many([{"content": f"note {i} about the garden", "extract": False} for i in range(n)])
    worker = mem.index._worker
    mem.close()
    assert worker is not None and not worker.is_alive()  # nothing left running inside the model or faiss
    with Memory.open(path, embedder=static_model) as again:
        again.index.wait()
        assert again.index_status().vectors == n


def test_a_threads_order_is_by_time_then_number_and_the_same_after_a_reload(tmp_path):
    from graphmem.store import Indexable

    def doc(i: int, thread: str, day: int | None) -> Indexable:
        return Indexable(id=f"d{i}", type="event", text=f"note {i}", kind="observation", scope="global",
                         private=False, thread=thread, time=dt.datetime(2025, 11, day, tzinfo=UTC) if day else None)

    index = SearchIndex(tmp_path / "idx")
    # out of time order, ties on time, two threads interleaved, one document without a time
    index.add([doc(0, "a", 5), doc(1, "b", 2), doc(2, "a", 1), doc(3, "a", 5), doc(4, "a", 3), doc(5, "b", 1),
               doc(6, "a", None), doc(7, "a", 1)])

    def orders(ix: SearchIndex) -> dict[str, list[str]]:
        return {name: [ix.ids[d] for d in ix._thread_places(code)[0]] for name, code in ix.threads.codes.items()}

    assert orders(index) == {"a": ["d2", "d7", "d4", "d0", "d3", "d6"], "b": ["d5", "d1"]}
    index.save()
    loaded = SearchIndex.load(tmp_path / "idx", None)
    assert loaded is not None and orders(loaded) == orders(index)
    loaded.add([doc(8, "a", 3)])
    assert orders(loaded)["a"] == ["d2", "d7", "d4", "d8", "d0", "d3", "d6"]


@pytest.mark.parametrize("embedded", [False, True])  # with an embedder, small adds are finished later
def test_a_batch_is_indexed_as_its_documents_one_at_a_time_would_be(tmp_path, embedded):
    from graphmem.store import Indexable

    at = dt.datetime(2025, 12, 1, tzinfo=UTC)
    docs = [
        Indexable(id=f"d{i}", type="state" if i % 4 == 0 else "event", text=f"note {i}", kind=("observation", "fact")[i % 2],
                  scope=("global", "project:x")[i % 3 == 0], private=i % 5 == 0, thread=None if i % 3 else f"t{i % 2}",
                  time=dt.datetime(2025, 11, 1 + i % 28, tzinfo=UTC) if i % 7 else None,
                  recorded_at=None if i % 2 else dt.datetime(2025, 11, 30, tzinfo=UTC),
                  about=(dt.datetime(2025, 10, 1, tzinfo=UTC), None) if i % 6 == 0 else None,
                  entities=(f"e{i % 3}", f"e{i % 3}", "e9"), subjects=(f"e{i % 3}",))
        for i in range(1500)  # past the columns' first 1,024 places: they grow inside the batch
    ]
    whole, single = SearchIndex(), SearchIndex(None, _CountingEmbedder() if embedded else None)
    whole.add(docs + docs[:3], at=at)  # repeats are skipped, in a batch as across batches
    for d in docs:
        single.add([d], at=at)
    single.add(docs[:3], at=at)
    assert single.status().documents == len(docs)  # (a read finishes what was left for later)
    n = len(docs)
    assert whole.ids.tolist() == single.ids.tolist()
    assert all(whole.ids.get(i) == single.ids.get(i) == n for n, i in enumerate(whole.ids.tolist()))
    for name in ("_type", "_kind", "_scope", "_private", "_time", "_about_lo", "_about_hi", "_thread", "_live",
                 "_recorded"):
        a, b = getattr(whole, name).head(n), getattr(single, name).head(n)
        assert a.tobytes() == b.tobytes(), name
    assert [whole.entities_of(d) for d in range(n)] == [single.entities_of(d) for d in range(n)]
    assert {k: v.tolist() for k, v in whole._entity_docs.items()} == {k: v.tolist() for k, v in single._entity_docs.items()}
    assert {k: v.tolist() for k, v in whole._subject_docs.items()} == {k: v.tolist() for k, v in single._subject_docs.items()}
    assert {c: (o.times.tobytes(), o.docs.tobytes()) for c, o in whole._thread_order.items()} == {
        c: (o.times.tobytes(), o.docs.tobytes()) for c, o in single._thread_order.items()}  # (NaN times too)
    assert whole.search_words("note 7", 5, None)[0].tolist() == single.search_words("note 7", 5, None)[0].tolist()
    assert whole.watermark == single.watermark == at
    single.close()


def _one(i: int, **fields):
    from graphmem.store import Indexable

    return Indexable(**{"id": f"d{i}", "type": "event", "text": f"note {i} about the garden",
                        "kind": "observation", "scope": "global", "private": False, "time": None} | fields)


def test_a_small_add_is_finished_by_the_next_read_or_change_or_else_by_the_worker(tmp_path):
    from graphmem.index.search import ADD_LATER_MAX

    embedder = _GatedEmbedder()  # the worker holds its first batch until the gate opens
    index = SearchIndex(tmp_path / "idx", embedder)
    index.add([_one(0, entities=("e1",))])
    assert index._later and not index._live.get(0)  # numbered, not finished: no reader sees it half-added
    listed_while_words_added = []
    add_words = index.lexical.add_many
    index.lexical.add_many = lambda *a: (listed_while_words_added.append(len(index._later)), add_words(*a))
    assert index.mentioning(["e1"]).tolist() == [True]  # a read finishes it first
    # it stays listed until its words are in too: a reader on another thread that finds the list empty
    # finds the document whole (its words are added last, after it is live)
    assert listed_while_words_added == [1] and not index._later
    assert index.search_words("garden", 5, None)[0].tolist() == [0]
    index.add([_one(1)])
    index.set_about("d1", (dt.datetime(2025, 11, 1, tzinfo=UTC), None))  # one waiting waits with its period
    assert [start for start, _, _ in index._later] == [1]
    assert index.dated(np.array([1])).tolist() == [True]
    index.add([_one(2)])
    index.set_about("d0", (dt.datetime(2025, 10, 1, tzinfo=UTC), None))  # one finished before: d2 still waits
    assert [start for start, _, _ in index._later] == [2]
    assert index.dated(np.array([0, 2])).tolist() == [True, False]
    index.add([_one(i) for i in range(3, 4 + ADD_LATER_MAX)])  # a larger add: finished at once, after d2
    assert not index._later and index.allowed().sum() == 4 + ADD_LATER_MAX
    index.add([_one(100, entities=("e2",))], at=dt.datetime(2025, 12, 1, tzinfo=UTC))
    index.save()  # a save holds what was left for later
    loaded = SearchIndex.load(tmp_path / "idx", _CountingEmbedder())
    assert loaded is not None and loaded.mentioning(["e2"]).sum() == 1
    assert loaded.watermark == dt.datetime(2025, 12, 1, tzinfo=UTC)
    loaded.close()
    index.add([_one(101)])
    embedder.gate.set()
    index.wait()  # the worker finishes them before it embeds them, with no read asking
    assert not index._later and index._live.get(len(index) - 1)
    assert index.status().vectors == len(index)
    index.close()


class _CountingEmbedder:
    """Words hashed into a few dimensions; remembers how many texts each call embedded."""

    name = "counting"
    dim = 8

    def __init__(self) -> None:
        self.calls: list[int] = []

    def embed(self, texts):
        import numpy as np

        self.calls.append(len(texts))
        rows = np.zeros((len(texts), self.dim), np.float32)
        for i, text in enumerate(texts):
            for word in text.split():
                rows[i, sum(map(ord, word)) % self.dim] += 1.0
        return rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)


def test_documents_added_one_at_a_time_are_embedded_together_and_wait_does_not_linger():
    from graphmem.store import Indexable

    embedder = _CountingEmbedder()
    index = SearchIndex(None, embedder)
    for i in range(20):  # as a writer recording one by one adds them: a little apart
        time.sleep(0.001)
        index.add([Indexable(id=f"d{i}", type="event", text=f"note {i} about the garden", kind="observation",
                             scope="global", private=False, time=None)])
    index.wait()
    status = index.status()
    assert status.vectors == 20 and status.lag == 0
    assert sum(embedder.calls) == 20
    assert len(embedder.calls) < 10  # not one model call per document
    index.add([Indexable(id="d20", type="event", text="one more note", kind="observation", scope="global",
                         private=False, time=None)])
    index.wait()  # returns once it is embedded: the batch in hand stops waiting for company
    assert index.status().vectors == 21
    index.close()


def test_wait_after_close_returns():
    import threading

    from graphmem.store import Indexable

    index = SearchIndex(None, _CountingEmbedder())
    index.add([Indexable(id="d0", type="event", text="a note", kind="observation", scope="global",
                         private=False, time=None)])
    index.wait()
    index.close()
    waiter = threading.Thread(target=index.wait, daemon=True)
    waiter.start()
    waiter.join(10)
    assert not waiter.is_alive()  # nothing is left to embed: no stopped worker is waited for


class _GatedEmbedder(_CountingEmbedder):
    """Embeds only while its gate is open."""

    def __init__(self) -> None:
        import threading

        super().__init__()
        self.gate = threading.Event()

    def embed(self, texts):
        self.gate.wait()
        return super().embed(texts)


def test_a_writer_waits_while_too_many_documents_wait_for_their_vectors(monkeypatch):
    import threading

    import graphmem.index.search as search
    from graphmem.store import Indexable

    monkeypatch.setattr(search, "EMBED_BACKLOG_MAX", 10)
    embedder = _GatedEmbedder()
    index = SearchIndex(None, embedder)
    notes = [Indexable(id=f"d{i}", type="event", text=f"note {i}", kind="observation", scope="global",
                       private=False, time=None) for i in range(30)]
    index.add(notes[:10])
    index.keep_up()  # ten wait: not too many
    index.add(notes[10:])
    writer = threading.Thread(target=index.keep_up, daemon=True)
    writer.start()
    writer.join(0.3)
    assert writer.is_alive() and index.status().lag == 30  # nothing embedded: the writer waits
    embedder.gate.set()
    writer.join(10)
    assert not writer.is_alive() and index.status().lag <= 9
    index.wait()
    assert index.status().vectors == 30

    stuck = SearchIndex(None, _GatedEmbedder())  # a close releases a waiting writer
    stuck.add(notes)
    writer = threading.Thread(target=stuck.keep_up, daemon=True)
    writer.start()
    writer.join(0.2)
    assert writer.is_alive()
    closer = threading.Thread(target=stuck.close, daemon=True)  # (waits for the gated batch in hand)
    closer.start()
    writer.join(10)
    assert not writer.is_alive()
    stuck.embedder.gate.set()
    closer.join(10)


@pytest.mark.parametrize("table", [{}, {"a": [1, 2, 3]}, {"a": [5], "b": [], "c": [2, 9, 11, 40]}])
def test_an_entity_to_documents_table_packs_into_arrays_and_back(table):
    from array import array

    from graphmem.index.search import _packed, _unpacked

    keys, offsets, docs = _packed({k: array("i", v) for k, v in table.items()})
    assert keys == list(table) and offsets.tolist() == [0, *np.cumsum([len(v) for v in table.values()])]
    assert docs.dtype == np.int32 and {k: list(v) for k, v in _unpacked(keys, offsets, docs).items()} == table


def _note(i, at):
    from graphmem.store import Indexable

    return Indexable(id=f"d{i}", type="event", text=f"note {i} about the garden and the roadmap", kind="observation",
                     scope="global", private=False, time=at, recorded_at=at, entities=(f"e{i % 7}",),
                     subjects=(f"e{i % 7}",), thread=f"t{i % 3}")


def test_a_save_beside_a_writer_and_the_embedder_holds_one_moment_of_the_index(tmp_path, static_model):
    import threading

    from graphmem.index import embedder_named
    from graphmem.index.vectors import VectorIndex

    embedder = embedder_named(static_model)
    index = SearchIndex(tmp_path / "idx", embedder)
    base = dt.datetime(2025, 11, 1, tzinfo=UTC)
    n, done, saved = 6000, threading.Event(), threading.Semaphore(0)

    def write():
        for start in range(0, n, 50):
            if start and start % 2000 == 0:  # a save made meanwhile, however fast the writer goes beside it
                saved.acquire(timeout=60)
            index.add([_note(i, base + dt.timedelta(seconds=i)) for i in range(start, start + 50)],
                      at=base + dt.timedelta(seconds=start + 49))
        done.set()

    writer = threading.Thread(target=write)
    writer.start()
    copies = []
    while not done.is_set() or index.unsaved:
        index.save()
        copies.append(tmp_path / f"copy{len(copies)}")
        shutil.copytree(tmp_path / "idx", copies[-1])
        saved.release()
    writer.join()
    assert len(copies) >= 3  # saved while the writer went on
    for copy in copies:
        # each document has its vector, or waits for one with its text: never neither, never both (read from
        # the files: a loaded index starts embedding what waits at once)
        waiting = {doc for doc, _ in json.loads((copy / "pending.json").read_text())}
        with np.load(copy / "columns.npz") as columns:
            held = len(columns["ids"])
            embedded = set(np.flatnonzero(columns["embedded"]).tolist())
        assert not waiting & embedded and len(waiting) + len(embedded) == held
        assert len(VectorIndex.load(copy / "vectors.faiss", embedder.dim)) == len(embedded)
        loaded = SearchIndex.load(copy, embedder)
        assert loaded is not None and len(loaded) == held
        # a document is there whole: words, columns, entities; the watermark is that of the last batch held
        assert len(loaded.lexical) == held and held % 50 == 0
        assert loaded.watermark == (base + dt.timedelta(seconds=held - 1) if held else None)
        assert loaded.search_words("roadmap", held + 1, None)[0].size == held
        assert sum(int(loaded.mentioning([f"e{k}"]).sum()) for k in range(7)) == held
        loaded.wait()
        assert loaded.status().vectors == held and loaded.status().lag == 0
        loaded.close()
    index.close()


def test_an_index_saved_while_memory_writes_is_loaded_after_a_kill(tmp_path):
    import subprocess
    import sys
    import textwrap

    path = tmp_path / "m.kuzu"
    # a process that records, waits for a periodic save of its index, records more and is killed
    child = textwrap.dedent(f"""
        import os, time
        from graphmem import Memory
        mem = Memory.open({str(path)!r}, embedder="none", extract=False, index_save_s=0.1)
        mem.record_many([{{"content": f"early note {{i}} about the garden", "source": {{"system": "t", "ref": f"a{{i}}"}}}}
                         for i in range(200)])
        while mem.index.unsaved:
            time.sleep(0.05)
        mem.record(content="a late note about the garden", source={{"system": "t", "ref": "late"}})
        os._exit(0)
    """)
    subprocess.run([sys.executable, "-c", child], check=True, timeout=120)
    saved = SearchIndex.load(tmp_path / "m.kuzu.index", None)
    assert saved is not None and len(saved) == 200  # the periodic save, not one at close
    with Memory.open(path, embedder="none", index_save_s=0) as mem:
        assert len(mem.index) == 201  # and what followed it is caught up from the database
        assert "late" in refs(mem.recall("late garden note", k=3))


def described(mem, event_id):
    """The documents mentioning Kyoto and Ana, and whether ``event_id`` says what period it is about."""
    index = mem.index
    return (np.flatnonzero(index.mentioning(["kyoto"])).tolist(), np.flatnonzero(index.mentioning(["ana"])).tolist(),
            index.dated(np.array([index.ids.get(event_id)])).tolist())


def test_plans_and_evidence_given_after_the_last_save_reach_the_index_on_open(tmp_path):

    path = tmp_path / "m.kuzu"
    index = tmp_path / "m.kuzu.index"
    with Memory.open(path, embedder="none", extract=False) as mem:
        trip = mem.record(content="Back from the trip, tired but happy.", occurred_at="2025-11-27").id
        move = mem.record(content="Boxes everywhere, the new flat is great.", occurred_at="2025-11-28").id
        mem.index.save()
        shutil.copytree(index, tmp_path / "before")
        mem.apply_write_plan(trip, {"event_annotations": {
            "about_year_start": 2019, "about_year_end": 2019, "entities": [{"type": "place", "name": "Kyoto"}]}})
        mem.assert_state("Ana", "lives_in", "Porto", valid_from="2025-11", evidence=[move])
        want = described(mem, trip)
    assert want[0] and want[1] and want[2] == [True]
    # the process died before saving its index again: the saved one predates the plan and the state
    shutil.rmtree(index)
    shutil.copytree(tmp_path / "before", index)
    with Memory.open(path, embedder="none", extract=False) as mem:
        assert described(mem, trip) == want


def test_a_read_while_a_batch_grows_the_columns_sees_the_documents_before_it_whole():
    """Readers take no lock: one that runs after a batch's ids are given but before its liveness column has
    grown (it grows last) answers about the documents it can see, not with arrays of two lengths."""
    from graphmem.store import Indexable

    at = dt.datetime(2025, 12, 1, tzinfo=UTC)
    index = SearchIndex()
    index.add([Indexable(id=f"a{i}", type="event", text=f"note {i}", kind="observation", scope="global",
                         private=False, time=at) for i in range(1000)], at=at)
    seen: list[tuple[int, list[str]]] = []
    put = index._live.put

    def reading_first(start, values):
        seen.append((len(index.allowed()), index.newest_events(2)))
        put(start, values)

    index._live.put = reading_first
    index.add([Indexable(id=f"b{i}", type="event", text=f"note {i}", kind="observation", scope="global",
                         private=i % 2 == 0, time=at) for i in range(500)], at=at)  # past the first 1,024 places
    assert seen == [(1024, ["a998", "a999"])]
    assert len(index.allowed()) == 1500 and index.allowed().sum() == 1250


def test_documents_queued_for_vectors_are_taken_as_get_would_give_them():
    """Queued many at once, taken many at once: in order, a stop or a flush last, the tasks counted."""
    from graphmem.index.search import _FLUSH, _Pending

    pending = _Pending()
    a, b, c = (0, "a"), (1, "b"), (2, "c")
    pending.put_many([a, b])
    pending.put(_FLUSH)
    pending.put_many([c])
    pending.put(None)
    assert pending.unfinished_tasks == 5 and pending.waiting() == 5
    assert pending.take(10) == [a, b, _FLUSH]  # nothing past the flush
    assert pending.take(1) == [c]
    assert pending.take(10) == [None] and pending.take(10) == []
    assert pending.waiting() == 3  # taken and not landed (the sentinels are not documents)
    pending.landed([a])  # (by identity: the documents the worker holds)
    assert pending.listed() == [b, c]
    pending.done(5)
    assert pending.unfinished_tasks == 0


def test_what_was_just_written_comes_before_older_lookalikes_that_have_vectors(tmp_path, static_model):
    said = "Maria thinks the migration needs another week. marker0x{}"
    with Memory.open(tmp_path / "m.kuzu", embedder=static_model) as mem:
        for i in [*range(40), *range(50, 100)]:
            mem.record(content=said.format(i), occurred_at="2025-11-27", thread="t0")
        mem.index.wait()
        for i in range(40, 50):  # each asked for at once: its vector is made first, as its lookalikes' were
            fresh = mem.record(content=said.format(i), occurred_at="2025-11-27", thread="t0")
            assert mem.recall(f"marker0x{i}", k=1)[0].id == fresh.id  # (1 of 10 without its vector)


def test_a_wait_for_documents_returns_once_they_have_vectors_and_only_for_a_small_backlog():
    from graphmem.index.search import EMBED_BATCH

    embedder = _GatedEmbedder()
    index = SearchIndex(None, embedder)
    index.add([_one(0)])
    started = time.monotonic()
    index.wait_for(np.array([0]), timeout=0.2)  # the gate is shut: it gives up
    assert time.monotonic() - started >= 0.2 and index.status().lag == 1
    embedder.gate.set()
    index.wait_for(np.array([0]))
    assert index._embedded.get(0) and index.status().lag == 0
    embedder.gate.clear()
    index.add([_one(i) for i in range(1, EMBED_BATCH + 2)])  # more than a batch waits: no wait at all
    started = time.monotonic()
    index.wait_for(np.array([1]), timeout=5)
    assert time.monotonic() - started < 1
    embedder.gate.set()
    index.close()


def test_a_last_save_writes_what_an_ordinary_one_does(tmp_path):
    """A closing memory's save writes the columns its writers change without copying them first (they wait
    for it) and the lexical tail as a segment of its own: what loads back is the same."""
    with Memory.open(tmp_path / "m.kuzu", embedder="none") as mem:
        fill(mem, 8)
        said = mem.record(content="Ana moved to the garden house.", occurred_at="2025-11-09",
                          extract=False).id
        moved = mem.assert_state("Ana", "lives_in", "Porto", valid_from="2025-11-09", evidence=[said])
        mem.close_state(mem.assert_state("Ana", "likes", "roses", evidence=[said]).id, valid_to="2025-11-20")
        mem.retract_state(moved.id, reason="a mistake")  # (no longer found)
        directory = tmp_path / "m.kuzu.index"
        saved = {}
        for last in (False, True):
            mem.index.save(last=last)
            with np.load(directory / "columns.npz") as columns:
                saved[last] = {name: columns[name] for name in columns.files}
            saved[last]["meta"] = json.loads((directory / "meta.json").read_text())
            loaded = SearchIndex.load(directory, None)
            assert loaded is not None
            saved[last]["found"] = loaded.lexical.search(["garden"], k=20)[0].tolist()
    assert saved[True].keys() == saved[False].keys()
    for name, value in saved[False].items():
        assert np.array_equal(saved[True][name], value, equal_nan=value.dtype.kind == "f") \
            if isinstance(value, np.ndarray) else saved[True][name] == value, name
    assert len(saved[True]["found"]) == 9
    assert not saved[True]["live"].all() and np.isfinite(saved[True]["about_hi"]).any()
