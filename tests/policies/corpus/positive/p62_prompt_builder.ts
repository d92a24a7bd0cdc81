// A TypeScript prompt builder: the tool list follows the filesystem's order, and the date is
// concatenated into the system prompt by a helper function of the same file.
import { readdirSync } from "node:fs";

function currentDay(): string {
  return new Date().toLocaleDateString();
}

const toolFiles = readdirSync("./tools").filter((f) => f.endsWith(".json"));

export const tools = toolFiles.map((f) => ({ name: f.replace(/\.json$/, "") }));

export const systemPrompt = "You are a release assistant. " + "Today is " + currentDay() + ".";
