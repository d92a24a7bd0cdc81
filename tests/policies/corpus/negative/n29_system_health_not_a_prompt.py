import os
import time


def system_health() -> dict[str, float]:
    load1, _, _ = os.getloadavg()
    return {"load": load1, "pid": float(os.getpid()), "at": time.time()}


def system_check_message() -> str:
    return f"checked at {time.ctime()}"
