"""The saved index for daily batches: its logic (:mod:`.store`) and file format (:mod:`.fileformat`)."""

from .fileformat import StoreError
from .store import SavedIndex

__all__ = ["SavedIndex", "StoreError"]
