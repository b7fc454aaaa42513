import { htmlToText } from "./html.js";
import { parseEmail } from "./mime.js";

/** Bodies longer than this many characters are cut (at a word boundary) before they become the state. */
export const MAX_BODY_CHARS = 20_000;

/** The marker appended to a body that was cut. */
export const CUT_MARKER = "\n[... message cut here ...]";

/** What a raw message becomes: the state text and facts about its structure. */
export interface EmailState {
  subject: string;
  /** "Subject: <subject>\n\n<body>", the body cut at MAX_BODY_CHARS. */
  text: string;
  bodyChars: number;
  cut: boolean;
  hasHtml: boolean;
  hasInReplyTo: boolean;
}

function tidy(s: string): string {
  return s
    .replace(/[ \t]+\n/g, "\n")
    .replace(/\n{4,}/g, "\n\n\n")
    .trim();
}

/**
 * Turn a raw message (latin1 string of its bytes) into the state text: the decoded Subject, a blank line,
 * then the body: every non-empty text/plain part, or when there is none, every text/html part converted to text.
 */
export function emailState(raw: string): EmailState {
  const mail = parseEmail(raw);
  const plain = mail.parts.filter((p) => p.type === "text/plain" && p.text.trim() !== "").map((p) => p.text);
  const html = mail.parts.filter((p) => p.type === "text/html").map((p) => p.text);
  const body = tidy(plain.length > 0 ? plain.join("\n\n") : html.map(htmlToText).join("\n\n"));
  let shown = body;
  let cut = false;
  if (body.length > MAX_BODY_CHARS) {
    const space = body.lastIndexOf(" ", MAX_BODY_CHARS);
    const nl = body.lastIndexOf("\n", MAX_BODY_CHARS);
    const at = Math.max(space, nl) > MAX_BODY_CHARS - 200 ? Math.max(space, nl) : MAX_BODY_CHARS;
    shown = body.slice(0, at) + CUT_MARKER;
    cut = true;
  }
  return {
    subject: mail.subject,
    text: `Subject: ${mail.subject}\n\n${shown}`,
    bodyChars: body.length,
    cut,
    hasHtml: html.length > 0,
    hasInReplyTo: mail.headers.has("in-reply-to"),
  };
}
