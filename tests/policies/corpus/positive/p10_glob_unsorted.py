import glob


def preamble() -> str:
    docs = glob.glob("docs/*.md")
    return "Available docs: " + ", ".join(docs)
