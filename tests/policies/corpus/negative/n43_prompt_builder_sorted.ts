// The same builder done right: the listing is sorted, the Set keeps the order it was given,
// and the date goes into the user's message, not the system prompt.
import { readdirSync } from "node:fs";

function currentDay(): string {
  return new Date().toLocaleDateString();
}

const toolFiles = readdirSync("./tools").filter((f) => f.endsWith(".json")).sort();
const builtins = [...new Set(["read", "write", "read"])];

export const tools = [...builtins, ...toolFiles].map((f) => ({ name: f }));

export const systemPrompt = "You are a release assistant. " + "Answer briefly.";
export const userMessage = "Today is " + currentDay() + ". What changed?";
