import os


def make_system():
    return f"Worker {os.getpid()} at your service. Follow the house rules."
