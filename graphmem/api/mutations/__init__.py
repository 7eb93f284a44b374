"""Mutations, one per module; merged into the root ``Mutation`` type by :mod:`graphmem.api.schema`."""

from graphmem.api.mutations.add_alias import AddAliasMutation
from graphmem.api.mutations.apply_write_plan import ApplyWritePlanMutation
from graphmem.api.mutations.assert_state import AssertStateMutation
from graphmem.api.mutations.close_state import CloseStateMutation
from graphmem.api.mutations.finalize_session import FinalizeSessionMutation
from graphmem.api.mutations.mark_done import MarkDoneMutation
from graphmem.api.mutations.merge_entities import MergeEntitiesMutation
from graphmem.api.mutations.record_checkpoint import RecordCheckpointMutation
from graphmem.api.mutations.record_event import RecordEventMutation
from graphmem.api.mutations.record_events import RecordEventsMutation
from graphmem.api.mutations.retract_state import RetractStateMutation
from graphmem.api.mutations.update_preference import UpdatePreferenceMutation
from graphmem.api.mutations.weigh_opinion import OpinionMutations

__all__ = ["MUTATIONS"]

MUTATIONS = (
    RecordEventMutation,
    RecordEventsMutation,
    AssertStateMutation,
    CloseStateMutation,
    MarkDoneMutation,
    RetractStateMutation,
    AddAliasMutation,
    MergeEntitiesMutation,
    ApplyWritePlanMutation,
    OpinionMutations,
    UpdatePreferenceMutation,
    RecordCheckpointMutation,
    FinalizeSessionMutation,
)
