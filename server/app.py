"""Deployment entry: ``uvicorn server.app:app`` (one worker: the process owns the database).

Configured by environment: ``GRAPHMEM_DB``, ``GRAPHMEM_TOKENS`` (see tokens.example.yaml),
``GRAPHMEM_TIMEZONE``, ``GRAPHMEM_ONTOLOGY``, ``GRAPHMEM_SECRETS``, ``GRAPHMEM_PII``,
``GRAPHMEM_BUFFER_POOL_MB``, ``GRAPHMEM_EMBEDDER``, ``GRAPHMEM_MAX_BODY_BYTES``, ``GRAPHMEM_RECOVERY`` and
the scheduled backups' ``GRAPHMEM_BACKUP_DIR``, ``GRAPHMEM_BACKUP_EVERY_H``, ``GRAPHMEM_BACKUP_KEEP``.
``graphmem serve`` does the same from the shell. Run a single worker: a second process cannot open the same
database. Keep idle connections open longer than clients keep theirs (``--timeout-keep-alive 75``, as
``graphmem serve`` does), or a client may send on a connection the server is closing.
"""

from graphmem import Memory
from graphmem.api import AccessPolicy, create_app
from graphmem.io.backups import BackupSchedule
from graphmem.settings import Settings

settings = Settings.from_env()
memory = Memory.open(settings.db, **settings.memory_options)
access = AccessPolicy.from_file(settings.tokens) if settings.tokens else AccessPolicy.open()
backups = ([BackupSchedule(memory, settings.backup_dir, every_s=settings.backup_every_h * 3600,
                           keep=settings.backup_keep)] if settings.backup_dir else [])
app = create_app(memory, access=access, max_body_bytes=settings.max_body_bytes, close_memory=True,
                 freeze_heap=True, background=backups)
