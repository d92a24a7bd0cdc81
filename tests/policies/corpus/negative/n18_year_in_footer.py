import datetime

system_prompt = f"Copyright {datetime.date.today().year} Acme. You answer billing questions."
