"""The GraphQL API and HTTP server: the only home of strawberry and starlette.

>>> from graphmem import Memory
>>> from graphmem.api import create_app
>>> app = create_app(Memory.in_memory(extract=False))
"""

from graphmem.api.access import AccessPolicy, Principal
from graphmem.api.app import create_app
from graphmem.api.schema import build_schema, export_sdl

__all__ = ["AccessPolicy", "Principal", "build_schema", "create_app", "export_sdl"]
