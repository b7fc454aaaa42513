/** Removes every occurrence of the API key from a text that may be shown, logged or stored. */
export function redact(text: string, apiKey: string | undefined): string {
  if (!apiKey || apiKey.length < 4) return text;
  return text.split(apiKey).join("[redacted]");
}
