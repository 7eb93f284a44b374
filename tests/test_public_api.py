import graphmem


def test_all_is_sorted_and_complete():
    assert graphmem.__all__ == sorted(graphmem.__all__)
    for name in graphmem.__all__:
        assert hasattr(graphmem, name), name


def test_every_error_has_a_stable_code():
    codes = {getattr(graphmem, n).code for n in graphmem.__all__
             if isinstance(getattr(graphmem, n), type) and issubclass(getattr(graphmem, n), graphmem.GraphmemError)}
    assert {"invalid_input", "malformed_time", "unknown_predicate", "not_found", "privacy_refused",
            "store_locked"} <= codes
