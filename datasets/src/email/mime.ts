/**
 * A small MIME reader for the Spam Assassin corpus: headers, multipart bodies, base64 and
 * quoted-printable transfer encodings, charsets and RFC 2047 encoded words. Input is the raw message
 * as a latin1 ("binary") string, so every byte maps to one char and can be re-decoded with its charset.
 */

interface Headers {
  get(name: string): string | undefined;
  has(name: string): boolean;
}

interface TextPart {
  type: "text/plain" | "text/html";
  text: string;
}

export interface ParsedEmail {
  headers: Headers;
  subject: string;
  parts: TextPart[];
}

function splitHeadBody(raw: string): { head: string; body: string } {
  const m = /\r?\n\r?\n/.exec(raw);
  if (!m) return { head: raw, body: "" };
  return { head: raw.slice(0, m.index), body: raw.slice(m.index + m[0].length) };
}

function parseHeaders(head: string): Headers {
  const map = new Map<string, string>();
  const lines = head.split(/\r?\n/);
  let name = "";
  for (const line of lines) {
    if (/^[ \t]/.test(line) && name) {
      map.set(name, `${map.get(name)} ${line.trim()}`);
      continue;
    }
    const m = /^([!-9;-~]+):[ \t]*(.*)$/.exec(line);
    if (!m) {
      name = "";
      continue;
    }
    name = m[1].toLowerCase();
    // The first occurrence wins (later duplicates are usually relays' additions).
    if (!map.has(name)) map.set(name, m[2]);
    else name = "";
  }
  return { get: (n) => map.get(n.toLowerCase()), has: (n) => map.has(n.toLowerCase()) };
}

/** Decode bytes (a latin1 string) in the given charset; unknown charsets fall back to windows-1252. */
function decodeCharset(binary: string, charset: string | undefined): string {
  const bytes = Buffer.from(binary, "latin1");
  const label = (charset ?? "").trim().toLowerCase();
  if (label && label !== "us-ascii" && label !== "ascii") {
    try {
      return new TextDecoder(label).decode(bytes);
    } catch {
      // unknown label: fall through
    }
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return new TextDecoder("windows-1252").decode(bytes);
  }
}

function decodeQuotedPrintable(s: string): string {
  return s
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
}

function decodeBase64(s: string): string {
  return Buffer.from(s.replace(/[^A-Za-z0-9+/=]/g, ""), "base64").toString("latin1");
}

/** Decode RFC 2047 encoded words (=?charset?B|Q?...?=) in a header value. */
export function decodeWords(value: string): string {
  const joined = value.replace(/(=\?[^?]+\?[BbQq]\?[^?]*\?=)\s+(?==\?)/g, "$1");
  return joined.replace(
    /=\?([^?*]+)(?:\*[^?]*)?\?([BbQq])\?([^?]*)\?=/g,
    (_, cs: string, enc: string, data: string) => {
      const binary =
        enc.toUpperCase() === "B"
          ? decodeBase64(data)
          : data
              .replace(/_/g, " ")
              .replace(/=([0-9A-Fa-f]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
      return decodeCharset(binary, cs);
    },
  );
}

interface ContentType {
  type: string;
  params: Record<string, string>;
}

function parseContentType(value: string | undefined): ContentType {
  if (!value) return { type: "text/plain", params: {} };
  const [first, ...rest] = value.split(";");
  const params: Record<string, string> = {};
  const re = /([A-Za-z0-9*_-]+)\s*=\s*(?:"([^"]*)"|([^\s;]+))/g;
  const tail = rest.join(";");
  for (let m = re.exec(tail); m; m = re.exec(tail)) params[m[1].toLowerCase()] = m[2] ?? m[3];
  return { type: first.trim().toLowerCase() || "text/plain", params };
}

function collect(raw: string, out: TextPart[], depth: number): Headers {
  const { head, body } = splitHeadBody(raw);
  const headers = parseHeaders(head);
  if (depth > 8) return headers;
  const ct = parseContentType(headers.get("content-type"));
  if (ct.type.startsWith("multipart/") && ct.params.boundary) {
    const boundary = `--${ct.params.boundary}`;
    const lines = body.split(/\r?\n/);
    let current: string[] | null = null;
    for (const line of lines) {
      if (line.startsWith(boundary)) {
        if (current) collect(current.join("\n"), out, depth + 1);
        current = line.startsWith(`${boundary}--`) ? null : [];
        if (line.startsWith(`${boundary}--`)) break;
        continue;
      }
      current?.push(line);
    }
    if (current) collect(current.join("\n"), out, depth + 1);
    return headers;
  }
  if (ct.type === "message/rfc822") {
    collect(body, out, depth + 1);
    return headers;
  }
  const disposition = (headers.get("content-disposition") ?? "").toLowerCase();
  if (disposition.startsWith("attachment")) return headers;
  if (ct.type !== "text/plain" && ct.type !== "text/html") return headers;
  const cte = (headers.get("content-transfer-encoding") ?? "").trim().toLowerCase();
  const binary =
    cte === "base64" ? decodeBase64(body) : cte === "quoted-printable" ? decodeQuotedPrintable(body) : body;
  out.push({ type: ct.type, text: decodeCharset(binary, ct.params.charset).replace(/\r\n?/g, "\n") });
  return headers;
}

/** Parse a raw message (latin1 string of its bytes): its headers, decoded Subject and text parts. */
export function parseEmail(raw: string): ParsedEmail {
  // An mbox "From " line before the headers is not a header.
  const text = raw.replace(/^From [^\n]*\n/, "");
  const parts: TextPart[] = [];
  const headers = collect(text, parts, 0);
  const subject = decodeWords(decodeCharset(headers.get("subject") ?? "", undefined))
    .replace(/\s+/g, " ")
    .trim();
  return { headers, subject, parts };
}
