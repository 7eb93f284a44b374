"""Read paths: time views over states."""

from graphmem.query.views import TimeView, attach_evidence

__all__ = ["TimeView", "attach_evidence"]
