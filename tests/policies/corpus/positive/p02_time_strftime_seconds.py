from datetime import datetime


def build():
    stamp = datetime.now().strftime("%Y-%m-%d %H:%M:%S")
    system_prompt = "You help with invoices.\nGenerated at " + stamp
    return system_prompt
