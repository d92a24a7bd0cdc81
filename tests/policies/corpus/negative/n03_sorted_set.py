SKILLS = {"search", "edit", "run-tests", "review"}

system_prompt = "You can use these skills: " + ", ".join(sorted(SKILLS))
