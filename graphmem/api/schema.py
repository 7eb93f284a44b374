"""The GraphQL schema: query domains and one-file mutations merged at the root, with request limits.

Errors: a :class:`~graphmem.errors.GraphmemError` raised by a query field keeps its message and puts its
``code`` and ``field`` in ``errors[].extensions``; GraphQL syntax and validation errors get ``code``
``graphql_parse_failed`` / ``graphql_validation_failed``; anything else is logged and answered as
``internal_error`` without internals. Mutations return their errors as data (``...Error`` results).
"""

from __future__ import annotations

import logging
from pathlib import Path

import strawberry
from graphql import ASTValidationRule, GraphQLError, Node
from graphql.validation import ASTValidationContext
from strawberry.extensions import (
    AddValidationRules,
    MaxAliasesLimiter,
    MaxTokensLimiter,
    ParserCache,
    QueryDepthLimiter,
    ValidationCache,
)
from strawberry.tools import merge_types
from strawberry.types import ExecutionContext

from graphmem.api.context import Context
from graphmem.api.entities import EntityQuery
from graphmem.api.events import EventQuery
from graphmem.api.maintenance import MaintenanceQuery
from graphmem.api.opinions import OpinionQuery
from graphmem.api.packs import PackQuery
from graphmem.api.recall import RecallQuery
from graphmem.api.mutations import MUTATIONS
from graphmem.api.system import SystemQuery
from graphmem.api.time import TimeQuery
from graphmem.errors import GraphmemError

__all__ = ["Limits", "build_schema", "export_sdl"]

log = logging.getLogger(__name__)

Query = merge_types("Query", (EntityQuery, TimeQuery, EventQuery, RecallQuery, OpinionQuery, PackQuery,
                                 MaintenanceQuery, SystemQuery))
Mutation = merge_types("Mutation", MUTATIONS)


class Limits:
    """Request limits, named: a query deeper, longer or with more aliases than these is refused."""

    MAX_DEPTH = 10
    MAX_TOKENS = 2000
    MAX_ALIASES = 30


class GraphmemSchema(strawberry.Schema):
    def process_errors(self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None) -> None:
        context = execution_context.context if execution_context is not None else None
        for error in errors:
            original = error.original_error
            if isinstance(original, GraphmemError):
                if isinstance(context, Context):
                    original = context.principal.shown(original)
                    error.message = original.message
                error.extensions = {**(error.extensions or {}), **original.to_dict()}
                error.extensions.pop("message", None)
            elif original is None:
                code = "graphql_parse_failed" if error.nodes is None and error.locations else None
                error.extensions = {**(error.extensions or {}), "code": code or "graphql_validation_failed"}
            else:
                log.error("internal error in %s", error.path, exc_info=original)
                error.message = "internal error; the request changed nothing; the server log has details"
                error.extensions = {"code": "internal_error"}


def _empty_selection(node: Node) -> Node | None:
    """The first ``{ }`` in ``node`` that selects nothing (the parser accepts one; the spec does not)."""
    selections = getattr(node, "selection_set", None)
    if selections is not None and not selections.selections:
        return node
    children = selections.selections if selections is not None else getattr(node, "definitions", ())
    return next((found for child in children if (found := _empty_selection(child)) is not None), None)


def _refusing_empty_selections(rule: type[ASTValidationRule]) -> type[ASTValidationRule]:
    """``rule``, except that a document with an empty selection set is refused instead: the depth limiter
    measures a document as it builds its rule, and an empty ``{ }`` made that fail (an internal error)."""

    class Refusing(rule):  # type: ignore[misc, valid-type]
        def __init__(self, context: ASTValidationContext) -> None:
            empty = _empty_selection(context.document)
            if empty is None:
                super().__init__(context)
                return
            ASTValidationRule.__init__(self, context)
            context.report_error(GraphQLError("a selection set selects nothing: name at least one field in each { }",
                                              empty))

    return Refusing


def build_schema(limits: type[Limits] = Limits) -> strawberry.Schema:
    # The depth and alias limiters are validation rules whose classes are made when the limiter is built;
    # building them once per schema (not per request) keeps the validation cache's key stable, so a repeated
    # operation is validated once (~9 ms for an entity page), not on every request.
    rules = [*map(_refusing_empty_selections, QueryDepthLimiter(max_depth=limits.MAX_DEPTH).validation_rules),
             *MaxAliasesLimiter(max_alias_count=limits.MAX_ALIASES).validation_rules]
    return GraphmemSchema(
        query=Query,
        mutation=Mutation,
        extensions=[
            lambda: AddValidationRules(rules),
            lambda: MaxTokensLimiter(max_token_count=limits.MAX_TOKENS),
            ParserCache,
            ValidationCache,
        ],
    )


def export_sdl(path: str | Path | None = None) -> str:
    """The schema as SDL (checked in as ``ontology/schema.graphql``); written to ``path`` when given."""
    sdl = build_schema().as_str() + "\n"
    if path is not None:
        Path(path).write_text(sdl, encoding="utf-8")
    return sdl


