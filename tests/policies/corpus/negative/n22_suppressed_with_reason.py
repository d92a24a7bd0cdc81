import time


def make_system():
    # prefixlock: ignore[PL101] evaluated once per deploy by the build step
    system = f"Build {time.time()}"
    return system
