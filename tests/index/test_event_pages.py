"""An entity's event pages come from the search index's columns: they must equal the store's own pages.

Both are asked the same questions (every filter, both orders, page after page by cursor) over memories
built at random with many ties: events at the same instant, written in the same transaction, so that the
order falls to the recorded time and then to the id.
"""

import datetime as dt

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem import Memory
from graphmem.store import EventQuery

from ..conftest import FakeClock

PEOPLE = ["Ann", "Bob", "Cy"]
SCOPES = ["global", "project:x"]
KINDS = ["world", "decision"]
DAYS = [dt.datetime(2025, 11, d, h, tzinfo=dt.UTC) for d in (1, 2, 3) for h in (0, 12)]

an_event = st.fixed_dictionaries({
    "day": st.sampled_from(DAYS),
    "entities": st.lists(st.sampled_from(PEOPLE), min_size=1, max_size=2, unique=True),
    "scope": st.sampled_from(SCOPES),
    "kind": st.sampled_from(KINDS),
    "private": st.booleans(),
})
a_question = st.fixed_dictionaries({
    "entity": st.sampled_from(PEOPLE),
    "limit": st.integers(1, 4),
    "scopes": st.sampled_from([None, ["global"], ["project:x", "global"], ["nowhere"]]),
    "kinds": st.sampled_from([None, ["decision"], ["world", "decision"]]),
    "include_private": st.booleans(),
    "since": st.sampled_from([None, *DAYS[1:4]]),
    "until": st.sampled_from([None, *DAYS[3:]]),
    "ascending": st.booleans(),
})


def _record(mem, batches):
    n = 0
    for batch in batches:
        items = []
        for e in batch:
            n += 1
            items.append({"content": f"note {n}", "occurred_at": e["day"].isoformat(), "entities": e["entities"],
                          "scope": e["scope"], "kind": e["kind"], "privacy": ["private"] if e["private"] else [],
                          "extract": False})
        mem.record_many(items)


def _pages(read, limit):
    """Every page, following each page's last event as the cursor, as lists of ids."""
    pages, after = [], None
    while True:
        page = read(after)
        pages.append([e.id for e in page])
        if len(page) < limit:
            return pages
        last = page[-1]
        after = (last.occurred_at.at, last.recorded_at, last.id)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batches=st.lists(st.lists(an_event, min_size=1, max_size=6), min_size=1, max_size=5),
       questions=st.lists(a_question, min_size=1, max_size=6), merge=st.booleans())
def test_entity_event_pages_from_the_index_equal_the_stores(batches, questions, merge):
    with Memory.in_memory(clock=FakeClock(), embedder="none", extract=False) as mem:
        _record(mem, batches)
        if merge and all(mem.store.entity_id_for_key(p.lower()) for p in ("ann", "cy")):
            mem.merge_entities("Ann", "Cy")  # Cy's events now mention Ann
        for q in questions:
            entity = mem.store.entity_id_for_key(q["entity"].lower())
            if entity is None:
                continue
            entity = mem.resolve_entity(entity)
            filters = {k: q[k] for k in ("scopes", "kinds", "include_private", "ascending")}
            since, until = q["since"], q["until"]

            def read(after, entity=entity, filters=filters, since=since, until=until, limit=q["limit"]):
                return mem.events(entity=entity, limit=limit, since=since.isoformat() if since else None,
                                  until=until.isoformat() if until else None, after=after, **filters)

            from_index = _pages(read, q["limit"])
            mem._index_whole = False  # as while the index is rebuilt: the store answers
            try:
                from_store = _pages(read, q["limit"])
            finally:
                mem._index_whole = True
            assert from_index == from_store, q


def test_events_a_write_plan_names_join_the_entitys_pages(clock):
    with Memory.in_memory(clock=clock, embedder="none", extract=False) as mem:
        first = mem.record(content="Kickoff with the vendor.", occurred_at="2025-11-03", entities=["Ann"])
        mem.apply_write_plan(first.id, {"event_annotations": {"entities": [{"type": "person", "name": "Bob"}]}})
        assert [e.id for e in mem.events(entity="Bob")] == [first.id]
        assert mem.events(entity="Bob") == mem.store.find_events(EventQuery(limit=50, entity_id=mem.resolve_entity("Bob")))
