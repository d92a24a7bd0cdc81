import logging
import os

log = logging.getLogger(__name__)

SYSTEM = "You are a file assistant. Use list_files to see the workspace."


def startup(root: str) -> str:
    log.info("workspace has %d entries: %s", len(os.listdir(root)), os.listdir(root))
    return SYSTEM
