/** The rule-computed properties of a message, in option order. Each rule reads only the state text. */
const EMAIL_PROPERTIES = ["link", "money", "reply", "quote", "unsubscribe"] as const;

/** One of the message properties. */
export type EmailProperty = (typeof EMAIL_PROPERTIES)[number];

const LINK = /\bhttps?:\/\/[^\s<>"')]+|\bwww\.[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}/i;
const MONEY_SIGN = /(?:^|[^\w$])(?:US\s?\$|[$£€¥])\s?\d[\d,]*(?:\.\d+)?/;
const MONEY_WORD =
  /\b\d[\d,]*(?:\.\d+)?\s?(?:k\s|million\s|billion\s|thousand\s)?(?:dollars?|usd|euros?|eur|pounds\s+sterling|gbp|cents)\b/i;
const REPLY_SUBJECT = /^(?:\[[^\]]*\]\s*)*(?:re|aw|sv)\s*(?:\[\d+\]|\(\d+\))?\s*:/i;
const QUOTE = /^[ \t]*>|wrote:[ \t]*$|^-{2,}\s*Original Message\s*-{2,}/im;
const UNSUBSCRIBE =
  /unsubscri|\bopt[- ]?out\b|\bremoved?\s+(?:yourself|you|me)\s+from\b|\bto\s+be\s+removed\b|\bremoval\s+from\s+(?:this|our|the|my)\s+(?:mailing\s+)?list/i;
/unsubscri|opt[- ]?out\b|\bremoved? (?:yourself|you|me) from\b|\bto be removed\b|\bremoval from (?:this|our|the|my) (?:mailing )?list/i;

/**
 * The properties of a message, computed from the state text (subject line + body as sent):
 * - link: an http(s):// URL or a www.<domain> address;
 * - money: a currency sign ($, US$, £, €, ¥) directly before a number, or a number followed by a currency
 *   word (dollars, USD, euros, EUR, pounds sterling, GBP, cents), e.g. "$1,000", "25 dollars";
 * - reply: the Subject begins with a reply prefix (Re:, RE:, Re[2]:, AW:, SV:), possibly after [list] tags;
 * - quote: the body quotes an earlier message: a line starting with ">", a line ending in "wrote:", or an
 *   "-----Original Message-----" separator;
 * - unsubscribe: the text offers a way out: "unsubscribe", "opt out", "remove you from", "to be removed",
 *   "removal from the list".
 */
export function emailProperties(subject: string, body: string): EmailProperty[] {
  const all = `${subject}\n${body}`;
  const out: EmailProperty[] = [];
  if (LINK.test(all)) out.push("link");
  if (MONEY_SIGN.test(all) || MONEY_WORD.test(all)) out.push("money");
  if (REPLY_SUBJECT.test(subject.trim())) out.push("reply");
  if (QUOTE.test(body)) out.push("quote");
  if (UNSUBSCRIBE.test(all)) out.push("unsubscribe");
  return out;
}
