"""Recall on small hand-built memories: fusion, filters, privacy, progressive disclosure."""

import itertools

import numpy as np
import pytest

from graphmem import Memory, StateInput
from graphmem.errors import InvalidInput, NotFound
from graphmem.index import static_model_built
from graphmem.query import PRESETS


@pytest.fixture
def team(clock):
    mem = Memory.in_memory(clock=clock, embedder="none")
    add = mem.record
    add(content="Caroline: I went to a LGBTQ support group yesterday.", occurred_at="2023-05-08",
        thread="c/s1", source={"system": "chat", "ref": "D1:3"}, entities=["Caroline"])
    add(content="Melanie: That sounds lovely, how was it?", occurred_at="2023-05-08", thread="c/s1",
        source={"system": "chat", "ref": "D1:4"}, entities=["Melanie"])
    add(content="Caroline: It was so powerful, everyone was accepting.", occurred_at="2023-05-08",
        thread="c/s1", source={"system": "chat", "ref": "D1:5"}, entities=["Caroline"])
    add(content="Melanie: I painted a sunrise over the lake.", occurred_at="2023-06-10", thread="c/s2",
        source={"system": "chat", "ref": "D2:1"}, entities=["Melanie"])
    add(content="Caroline: my adoption papers are in, private for now.", occurred_at="2023-06-11",
        thread="c/s2", source={"system": "chat", "ref": "D2:2"}, privacy=["private"], entities=["Caroline"])
    add(content="Team note: the support rota moves to Mondays.", occurred_at="2023-07-01", scope="project:team",
        kind="decision", source={"system": "chat", "ref": "T1"})
    yield mem
    mem.close()


def refs(hits):
    return [r for h in hits for r in h.refs]


def test_best_match_comes_first_with_its_source_and_parts(team):
    hits = team.recall("When did Caroline go to the support group?", k=3)
    assert hits[0].refs == ("D1:3",)
    assert hits[0].parts["lexical"] == 1.0
    assert "Caroline" in hits[0].entities
    assert [e.id for e in team.get(hits[0].event_ids)] == list(hits[0].event_ids)


def test_the_turn_after_a_match_is_raised_by_its_thread_neighbour(team):
    plain = team.recall("support group", k=6, preset="plain_bm25")
    fused = team.recall("support group", k=6)
    assert "D1:4" not in refs(plain)  # shares no word with the query
    d14 = next(h for h in fused if h.refs == ("D1:4",))
    assert d14.parts["graph"] > 0 and d14.parts["lexical"] == 0


def test_entity_named_in_the_query_raises_its_mentions(team):
    hits = team.recall("What did Melanie do?", k=3)
    assert set(refs(hits)) >= {"D2:1"}
    assert all(h.parts.get("entity", 0) == 1.0 for h in hits if "Melanie" in h.entities)


def test_what_an_entity_said_ranks_above_what_was_said_to_it(team):
    # D1:4 is Melanie's own turn (declared with it); "Thanks, Melanie" only names her
    team.record(content="Caroline: Thanks, Melanie! I find that lovely.", occurred_at="2023-05-09",
                thread="c/s1", source={"system": "chat", "ref": "D1:6"}, entities=["Caroline"])
    hits = {h.refs[0]: h for h in team.recall("what did Melanie find lovely?", k=6)}
    assert hits["D1:4"].parts["subject"] == 1.0 and hits["D1:4"].parts["entity"] == 1.0
    assert hits["D1:6"].parts.get("subject", 0) == 0 and hits["D1:6"].parts["entity"] == 1.0
    assert hits["D1:4"].score > hits["D1:6"].score
    assert hits["D1:6"].parts["lexical"] > hits["D1:4"].parts["lexical"]  # words alone would rank it first


def test_time_named_in_the_query_raises_what_happened_then(team):
    hits = team.recall("what happened in June 2023", k=2)
    assert refs(hits) == ["D2:1"]  # the private event of June stays hidden
    assert hits[0].parts["time"] == 1.0


def test_a_time_the_query_names_raises_the_states_that_held_then(clock):
    """"Where did Peter live in 2019?": the home he moved into in 2018 and left in 2021 held then; the one he
    moved into in 2021 did not. The period follows the state as it is closed, and a rebuild keeps it."""
    with Memory.in_memory(clock=clock, embedder="none") as mem:
        mem.record(content="Peter moved to Berlin.", occurred_at="2018-03-01")
        mem.record(content="Peter moved to Lisbon.", occurred_at="2021-06-10")

        def held(question):
            return {h.state.object: h.parts["time"] for h in mem.recall(question, k=5) if h.state is not None}

        assert held("Where did Peter live in 2019?") == {"Berlin": 1.0, "Lisbon": 0.0}
        assert held("Where did Peter live in 2024?") == {"Berlin": 0.0, "Lisbon": 1.0}
        assert mem.recall("Where did Peter live in 2019?", k=1)[0].state.object == "Berlin"
        mem.reindex()  # rebuilt from the database: the same periods
        assert held("Where did Peter live in 2019?") == {"Berlin": 1.0, "Lisbon": 0.0}


def test_a_question_in_the_present_raises_the_states_that_hold_now(clock):
    """"Where does Peter live?": the home he has now before the one he left, whose words match as well;
    asked in the past, or of a time named, the part is not given."""
    from graphmem.query import asks_now

    assert [asks_now(q) for q in ("Where does Peter live?", "Is Anna still at Acme?", "Where did Peter live?",
                                  "Where was Peter based before Lisbon?")] == [True, True, False, False]
    with Memory.in_memory(clock=clock, embedder="none") as mem:
        mem.record(content="Peter moved to Berlin.", occurred_at="2018-03-01")
        mem.record(content="Peter moved to Lisbon.", occurred_at="2021-06-10")
        hits = [h for h in mem.recall("Where does Peter live?", k=5) if h.state is not None]
        assert [(h.state.object, h.parts["current"]) for h in hits] == [("Lisbon", 1.0), ("Berlin", 0.0)]
        assert all("current" not in h.parts for h in mem.recall("Where did Peter live?", k=5))
        assert all("current" not in h.parts for h in mem.recall("Where does Peter live in 2019?", k=5))


def test_a_question_asking_when_raises_what_says_when(team):
    # D1:3 says "yesterday", D1:5 says nothing of when: asked when, the one that says it gains
    team.record(content="Caroline: the support group was so powerful, everyone was accepting.",
                occurred_at="2023-05-08", thread="c/s1", source={"system": "chat", "ref": "D1:6"})
    asked = {h.refs[0]: h for h in team.recall("When was the support group powerful?", k=5)}
    assert asked["D1:3"].parts["dated"] == 1.0 and asked["D1:6"].parts["dated"] == 0.0
    plain = {h.refs[0]: h for h in team.recall("Was the support group powerful?", k=5)}
    assert "dated" not in plain["D1:3"].parts
    gain = asked["D1:3"].score - plain["D1:3"].score
    assert gain == pytest.approx(PRESETS["default"].dated, abs=1e-5)
    assert asked["D1:6"].score == pytest.approx(plain["D1:6"].score, abs=1e-5)
    state = team.assert_state(subject="Caroline", predicate="lives_in", object="Sweden", valid_from="2019")
    [hit] = [h for h in team.recall("When did Caroline live in Sweden?", k=10) if h.id == state.id]
    assert hit.parts["dated"] == 1.0  # a state with a known start says when


@pytest.mark.parametrize(("part", "named", "other", "question", "plain"), [
    ("place", "Caroline: the hike last weekend in Sweden was lovely.",
     "Caroline: the hike last weekend up the hill was lovely.", "Where was the lovely hike?",
     "Was the lovely hike long?"),
    ("title", 'Caroline: I read "Charlotte\'s Web" to the kids last night.',
     "Caroline: I read a story to the kids last night.", "What books has Caroline read to the kids?",
     "Has Caroline read to the kids?"),
])
def test_a_question_asking_where_or_for_titles_raises_what_names_a_place_or_a_title(
    team, part, named, other, question, plain
):
    # the first text names a place (a title), the second does not; asked where (for books), the first gains
    for ref, text in (("D3:1", named), ("D3:2", other)):
        team.record(content=text, occurred_at="2023-08-01", thread="c/s3",
                    source={"system": "chat", "ref": ref})
    asked = {h.refs[0]: h for h in team.recall(question, k=10)}
    assert asked["D3:1"].parts[part] == 1.0 and asked["D3:2"].parts[part] == 0.0
    assert list(asked)[0] == "D3:1"
    unasked = {h.refs[0]: h for h in team.recall(plain, k=10)}
    assert part not in unasked["D3:1"].parts
    gain = asked["D3:1"].score - unasked["D3:1"].score
    assert gain == pytest.approx(getattr(PRESETS["default"], part), abs=1e-5)
    assert [h for h in team.recall(question, k=10, preset="plain_bm25") if part in h.parts] == []


def test_a_place_first_met_after_a_question_asked_where_counts_too(team):
    team.recall("Where was the lovely hike?", k=10)  # the places are read here, then kept up to date
    team.record(content="Melanie: my hike last weekend in Lisbon was lovely.", occurred_at="2023-08-02",
                thread="c/s3", source={"system": "chat", "ref": "D3:3"})
    assert team.recall("Which places had a lovely hike?", k=10, entities=["Lisbon"])[0].parts["place"] == 1.0


def test_a_time_the_query_names_as_before_or_after_a_day_means_the_days_next_to_it(clock):
    mem = Memory.in_memory(clock=clock, embedder="none")
    for day, ref in (("2023-01-10", "jan"), ("2023-05-28", "may"), ("2023-06-03", "june")):
        mem.record(content="Melanie went hiking in the hills.", occurred_at=day, source={"system": "t", "ref": ref})
    hits = mem.recall("Where did Melanie go hiking the week before 1 June 2023?", k=3)
    assert {h.refs[0]: h.parts["time"] for h in hits} == {"may": 1.0, "jan": 0.0, "june": 0.0}
    assert hits[0].refs == ("may",)
    hits = mem.recall("Where has Melanie gone hiking since 1 June 2023?", k=3)
    assert {h.refs[0]: h.parts["time"] for h in hits}["june"] == 1.0
    mem.close()


def test_time_window_excludes_what_is_outside(team):
    assert refs(team.recall("Caroline support", k=10, since="2023-06-01")) == ["T1"]
    inside = refs(team.recall("Caroline support", k=10, until="2023-05"))
    assert inside and set(inside) <= {"D1:3", "D1:4", "D1:5"}
    assert refs(team.recall("lake", k=10, since="30d", relative_to="2023-06-20")) == ["D2:1"]


def test_a_season_window_runs_from_its_first_month_to_the_end_of_its_last(clock):
    with Memory.in_memory(clock=clock, embedder="none") as mem:
        for day in ("2025-05-31", "2025-06-01", "2025-08-31", "2025-09-01"):
            mem.record(content=f"Hiking trip notes of {day}", occurred_at=day)
        found = mem.recall("hiking trip", since="last summer", until="last summer", relative_to="2025-11-27")
        assert sorted(str(h.time) for h in found) == ["2025-06-01", "2025-08-31"]


def test_private_items_appear_only_when_asked(team):
    assert "D2:2" not in refs(team.recall("adoption papers", k=10))
    assert "D2:2" in refs(team.recall("adoption papers", k=10, include_private=True))


def test_scope_kind_and_entity_filters(team):
    assert refs(team.recall("support", k=10, scopes=["project:team"])) == ["T1"]
    assert "T1" not in refs(team.recall("support", k=10, scopes=["global"]))
    assert refs(team.recall("support", k=10, kinds=["decision"])) == ["T1"]
    assert set(refs(team.recall("support", k=10, entities=["Caroline"]))) <= {"D1:3", "D1:5"}


def test_states_are_hits_with_their_evidence_refs(team):
    ev = team.record(content="Caroline moved to Boston.", occurred_at="2023-08-01",
                     source={"system": "chat", "ref": "D3:1"}, extract=False)
    state = team.assert_state(subject="Caroline", predicate="lives_in", object="Boston", valid_from="2023-08-01",
                              evidence=[ev.id])
    hits = team.recall("where does Caroline live, Boston?", k=3, types=["state"])
    assert hits[0].id == state.id and hits[0].type == "state"
    assert hits[0].refs == ("D3:1",) and hits[0].event_ids == (ev.id,)


def test_degraded_mode_without_vectors_still_answers(team):
    assert team.index_status().degraded
    assert team.recall("sunrise lake", k=1, preset="semantic") == []  # nothing to compare vectors with
    assert refs(team.recall("sunrise lake", k=1)) == ["D2:1"]


def test_japanese_events_are_found_by_japanese_queries(clock):
    mem = Memory.in_memory(clock=clock, embedder="none")
    mem.record(content="先週、田中さんと東京オフィスで会った。", source={"system": "t", "ref": "ja1"}, extract=False)
    mem.record(content="大阪の倉庫は来月閉鎖される。", source={"system": "t", "ref": "ja2"}, extract=False)
    mem.record(content="Tanaka will visit the Tokyo office (東京) next week.", source={"system": "t", "ref": "mix"},
               extract=False)
    assert refs(mem.recall("東京", k=1, preset="plain_bm25"))[0] in {"ja1", "mix"}
    assert set(refs(mem.recall("東京", k=3, preset="plain_bm25"))) == {"ja1", "mix"}
    assert refs(mem.recall("倉庫", k=3)) == ["ja2"]
    assert refs(mem.recall("Tokyo office", k=1)) == ["mix"]


@pytest.mark.parametrize(("args", "field"), [
    ({"query": ""}, "query"),
    ({"query": "x" * 5000}, "query"),
    ({"query": "x", "k": 0}, "k"),
    ({"query": "x", "k": 1000}, "k"),
    ({"query": "x", "since": "not a time at all"}, "since"),
    ({"query": "x", "kinds": ["nonsense"]}, "kinds"),
    ({"query": "x", "types": ["page"]}, "types"),
    ({"query": "x", "preset": "best"}, "preset"),
])
def test_bad_arguments_name_the_field(team, args, field):
    with pytest.raises(InvalidInput) as caught:
        team.recall(**args)
    assert caught.value.field == field


def test_unknown_entity_filter_is_not_found(team):
    with pytest.raises(NotFound) as caught:
        team.recall("x", entities=["Nobody"])
    assert caught.value.field == "entities"


def test_presets_are_defined_in_one_place():
    assert {"default", "lexical", "semantic"} <= set(PRESETS)
    assert PRESETS["lexical"].vector == 0 and PRESETS["semantic"].lexical == 0


def test_vectors_find_paraphrases_words_miss(clock):
    if not static_model_built():
        pytest.skip("the static model is not built; `make test` builds it with `graphmem models build`")
    mem = Memory.in_memory(clock=clock, embedder="static")
    mem.record(content="Ana adopted a puppy from the shelter.", source={"system": "t", "ref": "dog"}, extract=False)
    mem.record(content="The quarterly budget review is on Friday.", source={"system": "t", "ref": "budget"},
               extract=False)
    mem.index.wait()
    hits = mem.recall("new pet dog", k=2, preset="semantic")
    assert hits[0].refs == ("dog",) and hits[0].parts["vector"] == 1.0


def test_the_day_an_event_talks_about_counts_in_time_windows(team):
    # D1:3 was written on 8 May and says "yesterday": it is about 7 May, and found there (until a day: its end)
    [hit] = team.recall("support group", k=10, since="2023-05-07", until="2023-05-07")
    assert hit.refs == ("D1:3",)
    about = team.annotation(hit.id).about
    assert (about.start.at.isoformat()[:10], about.end.at.isoformat()[:10]) == ("2023-05-07", "2023-05-08")
    assert refs(team.recall("what happened on 7 May 2023", k=1)) == ["D1:3"]
    team.reindex()  # rebuilt from the database: the same answer
    assert refs(team.recall("support group", k=10, since="2023-05-07", until="2023-05-07")) == ["D1:3"]
    # a write plan saying otherwise replaces the period read from the text, in the index too
    team.apply_write_plan(hit.id, {"event_annotations": {"about_start_ts": "2023-04-01", "about_end_ts": "2023-04-02",
                                                         "about_time_confidence": 0.9}})
    assert team.recall("support group", k=10, since="2023-05-07", until="2023-05-07") == []
    assert refs(team.recall("support group", k=10, since="2023-04-01", until="2023-04-01")) == ["D1:3"]


def _reference_scores(index, text, k, preset, now, named_entities=(), named_times=(), include_private=False,
                      asks_when=False, places=(), asks_title=False, asks_now=False):
    """The documented score of every document that has one, computed document by document."""
    allowed = index.allowed(include_private=include_private)
    n = len(allowed)
    pool = max(preset.candidates, 4 * k)
    lexical, vector = [0.0] * n, [0.0] * n
    docs, scores = index.search_words(text, pool, allowed)
    for d, s in zip(docs.tolist(), scores.tolist()):
        lexical[d] = float(np.float32(s / scores[0]) ** np.float32(preset.lexical_power))
    docs, sims = index.search_vectors(text, pool, allowed)
    if len(sims) and sims[0] > preset.min_similarity:
        floor = max(float(sims[-1]) if len(sims) > 1 else 0.0, preset.min_similarity)
        for d, s in zip(docs.tolist(), sims.tolist()):
            vector[d] = min(max((s - floor) / max(float(sims[0]) - floor, 1e-6), 0.0), 1.0) ** preset.vector_power
    base = [preset.lexical * lexical[d] + preset.vector * vector[d] for d in range(n)]
    graph = [0.0] * n
    strongest = sorted((d for d in range(n) if base[d] > 0), key=lambda d: -base[d])[:pool]
    for d in strongest:  # neighbours by walking the thread's documents in time order
        thread = index._thread.data[d]
        if thread < 0:  # (a state: in no thread)
            continue
        order = sorted((index.times()[o], o) for o in range(n) if index._thread.data[o] == thread)
        at = order.index((index.times()[d], d))
        for step, weight in enumerate(preset.graph, start=1):
            for j in (at - step, at + step):
                if 0 <= j < len(order) and allowed[order[j][1]]:
                    graph[order[j][1]] += weight * base[d]
    entity = index.mentioning(named_entities, n) & allowed if named_entities else np.zeros(n, bool)
    about = index.about(named_entities, n) & allowed if named_entities else np.zeros(n, bool)
    inside = np.zeros(n, bool)
    for start, end in named_times:  # (a state: when it held)
        inside |= index.within(start, end, n, held=True) & allowed
    dated = index.dated(np.arange(n)) if asks_when else np.zeros(n, bool)
    placed = index.mentioning(places, n) & allowed if places and preset.place else np.zeros(n, bool)
    titled = index.titled(np.arange(n)) & allowed if asks_title and preset.title else np.zeros(n, bool)
    current = np.zeros(n, bool)
    if asks_now and not named_times:  # a state that holds at now: begun by then (or open) and not ended
        for d in range(n):
            lo, hi = index._about_lo.data[d], index._about_hi.data[d]
            current[d] = index._type.data[d] == 1 and (np.isnan(lo) or lo <= now.timestamp()) and (
                np.isnan(hi) or hi > now.timestamp())
    total = {}
    for d in range(n):
        if base[d] + graph[d] > 0 or entity[d] or about[d] or inside[d]:  # (a place or a title: no match)
            age = (now.timestamp() - index.times()[d]) / 86_400
            total[d] = (base[d] + graph[d] + preset.entity * entity[d] + preset.subject * about[d]
                        + preset.time * inside[d] + preset.dated * dated[d] + preset.place * placed[d]
                        + preset.title * titled[d] + preset.current * current[d]
                        + (0.0 if np.isnan(age) else  # (a state with no start)
                           preset.recency * 0.5 ** (max(age, 0) / preset.half_life_days)))
    return {index.ids[d]: score for d, score in total.items()}


@pytest.mark.parametrize("preset", ["default", "lexical", "plain_bm25", "recent"])
def test_ranking_equals_the_documented_score_computed_document_by_document(clock, preset):
    import datetime as dt

    from graphmem.query.recall import rank

    rng = np.random.default_rng(5)
    words = ["support", "group", "lake", "paint", "adopt", "rota", "dog", "hike", "cook", "race"]
    mem = Memory.in_memory(clock=clock, embedder="none", extract=False)
    mem.record_many({
        "content": " ".join(rng.choice(words, size=int(rng.integers(2, 8)))),
        "occurred_at": f"2023-{1 + i % 12:02d}-{1 + i % 27:02d}T{i % 24:02d}:00:00Z", "thread": f"t{i % 7}",
        "entities": [f"P{i % 5}"], "privacy": ["private"] if i % 9 == 0 else [],
    } for i in range(300))
    periods = [("2022", "2023-03-15"), ("2023-02", None), (None, "2023-06"), ("2024-06", None), (None, None)]
    mem.assert_states([StateInput(subject=f"P{i % 5}", predicate="note",
                                  object=" ".join(rng.choice(words, size=2)), valid_from=periods[i % 5][0],
                                  valid_to=periods[i % 5][1]) for i in range(40)])
    index = mem.index
    for i in range(0, 300, 4):  # a quarter say when (as if their text named a day)
        day = dt.datetime(2023, 1, 1 + i % 28, tzinfo=dt.UTC)
        index.set_about(index.ids[i], (day, day + dt.timedelta(days=1)))
    now = dt.datetime(2024, 1, 1, tzinfo=dt.UTC)
    people = {f"P{i}": mem.resolve_entity(f"P{i}") for i in range(5)}
    for trial in range(40):
        text = " ".join(rng.choice(words, size=int(rng.integers(1, 4))))
        named = (people[f"P{trial % 5}"],) if trial % 3 == 0 else ()
        march = (dt.datetime(2023, 3, 1, tzinfo=dt.UTC), dt.datetime(2023, 4, 1, tzinfo=dt.UTC))
        times = (march,) if trial % 4 == 0 else ()
        when = trial % 2 == 0
        places = (people[f"P{(trial + 1) % 5}"],) if trial % 5 == 1 else ()  # as if P1..P4 were places
        title = trial % 3 == 1
        present = trial % 2 == 1
        got = rank(index, text, 60, preset=PRESETS[preset], now=now, named_entities=named, named_times=times,
                   asks_when=when, places=places, asks_title=title, asks_now=present)
        want = _reference_scores(index, text, 60, PRESETS[preset], now, named, times, asks_when=when,
                                 places=places, asks_title=title, asks_now=present)
        scores = [want[r.id] for r in got]  # a KeyError: a document that has no score, or is not allowed
        assert len(got) == min(60, len(want))
        assert all(a >= b - 1e-5 for a, b in itertools.pairwise(scores)), (text, named, times)
        left_out = set(want) - {r.id for r in got}
        assert all(want[i] <= scores[-1] + 1e-5 for i in left_out)
        assert all(abs(r.score - want[r.id]) < 1e-4 for r in got)
    mem.close()


def test_the_words_part_scales_the_word_match_of_the_best_candidates_and_adds_to_the_score(clock):
    if not static_model_built():
        pytest.skip("the static model is not built; `make test` builds it with `graphmem models build`")
    mem = Memory.in_memory(clock=clock, embedder="static", extract=False)
    texts = {
        "garden": "Deborah: Yesterday my neighbour and I ran a free gardening class for the community.",
        "run": "Deborah: I started a running group with Anna last week.",
        "budget": "Deborah: The quarterly budget review moved to Friday.",
        "yoga": "Deborah: Teaching yoga on the beach is what I love most.",
    }
    for ref, text in texts.items():
        mem.record(content=text, occurred_at="2023-05-08", thread="d/s1", source={"system": "t", "ref": ref},
                   entities=["Deborah"])
    mem.index.wait()
    query = "What activities does Deborah pursue besides yoga?"
    hits = mem.recall(query, k=4)
    preset = PRESETS["default"]
    embedder = mem.index.embedder
    match = embedder.word_match(query, *embedder.word_rows([h.content for h in hits]))  # all are in the pool
    scaled = (match - match.min()) / (match.max() - match.min())
    assert [h.parts["words"] for h in hits] == pytest.approx(scaled.tolist(), abs=1e-5)
    weights = {"lexical": preset.lexical, "vector": preset.vector, "graph": 1.0, "entity": preset.entity,
               "subject": preset.subject, "dated": preset.dated, "recency": preset.recency,
               "words": preset.words, "current": preset.current}
    for hit in hits:
        assert hit.score == pytest.approx(sum(weights[p] * v for p, v in hit.parts.items()), abs=1e-4)
    # without word vectors the part is left out and the rest of the ranking stands
    lexical_only = Memory.in_memory(clock=clock, embedder="none", extract=False)
    lexical_only.record(content=texts["garden"], occurred_at="2023-05-08",
                        source={"system": "t", "ref": "garden"})
    assert "words" not in lexical_only.recall(query, k=1)[0].parts
    mem.close()
    lexical_only.close()
