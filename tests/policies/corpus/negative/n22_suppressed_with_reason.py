import time


def make_system():
    system = f"Build {time.time()}"  # prefixlock: ignore[PL101] evaluated once per deploy by the build step
    return system
