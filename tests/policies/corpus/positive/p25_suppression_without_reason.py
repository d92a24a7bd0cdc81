import time


def make_system():
    system = f"Epoch {time.time()}"  # prefixlock: ignore[PL101]
    return system
