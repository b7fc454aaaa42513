import { describe, expect, it } from "vitest";
import { htmlToText } from "../src/email/html.js";
import { CUT_MARKER, emailState, MAX_BODY_CHARS } from "../src/email/message.js";
import { decodeWords } from "../src/email/mime.js";
import { emailProperties } from "../src/email/properties.js";

const latin1 = (s: string) => Buffer.from(s, "utf8").toString("latin1");

describe("emailState", () => {
  it("keeps the decoded Subject and the plain body, drops the headers and the mbox From line", () => {
    const raw = latin1(
      "From someone@example.com  Thu Aug 22 12:36:23 2002\nReceived: from x\n\tby y\nSubject: =?utf-8?B?Q2Fmw6kgbWVldGluZw==?=\n  tomorrow\nFrom: a@b.c\n\nHello,\nsee you.\n",
    );
    const s = emailState(raw);
    expect(s.subject).toBe("Café meeting tomorrow");
    expect(s.text).toBe("Subject: Café meeting tomorrow\n\nHello,\nsee you.");
    expect(s.hasHtml).toBe(false);
  });

  it("prefers text/plain in multipart/alternative and decodes quoted-printable in its charset", () => {
    const raw = [
      "Subject: Re: menu",
      'Content-Type: multipart/alternative; boundary="XX"',
      "",
      "preamble",
      "--XX",
      "Content-Type: text/plain; charset=iso-8859-1",
      "Content-Transfer-Encoding: quoted-printable",
      "",
      "Caf=E9 au lait co=",
      "sts $3.50",
      "--XX",
      "Content-Type: text/html",
      "",
      "<p>ignored</p>",
      "--XX--",
      "",
    ].join("\n");
    const s = emailState(raw);
    expect(s.text).toBe("Subject: Re: menu\n\nCafé au lait costs $3.50");
    expect(s.hasHtml).toBe(true);
  });

  it("turns an HTML-only base64 body into text and keeps link targets", () => {
    const html =
      '<html><head><title>t</title><style>p{}</style></head><body><p>Win &amp; save&nbsp;now</p><a href="http://x.example/buy">Click here</a><script>evil()</script></body></html>';
    const raw = `Subject: Offer\nContent-Type: text/html; charset=utf-8\nContent-Transfer-Encoding: base64\n\n${Buffer.from(html).toString("base64")}\n`;
    expect(emailState(raw).text).toBe("Subject: Offer\n\nWin & save now\nClick here (http://x.example/buy)");
  });

  it(`cuts bodies longer than ${MAX_BODY_CHARS} characters at a word boundary and says so`, () => {
    const body = "word ".repeat(10_000);
    const s = emailState(`Subject: long\n\n${body}`);
    expect(s.cut).toBe(true);
    expect(s.bodyChars).toBe(body.trim().length);
    expect(s.text.endsWith(`word${CUT_MARKER}`)).toBe(true);
    expect(s.text.length).toBeLessThanOrEqual(
      "Subject: long\n\n".length + MAX_BODY_CHARS + CUT_MARKER.length,
    );
    expect(emailState("Subject: short\n\nword word").cut).toBe(false);
  });

  it("decodes encoded words in Q and B forms, joined across white space", () => {
    expect(decodeWords("=?iso-8859-1?Q?caf=E9_cr=E8me?= =?utf-8?B?IOKCrDU=?=")).toBe("café crème €5");
  });

  it("htmlToText drops comments and collapses blank runs", () => {
    expect(htmlToText("<div>a<!-- hidden --></div>\n\n\n<div>b</div>")).toBe("a\n\nb");
  });
});

describe("emailProperties", () => {
  const props = (subject: string, body: string) => emailProperties(subject, body);

  it("link: http(s) URLs and www. addresses", () => {
    expect(props("x", "go to https://example.com/a now")).toContain("link");
    expect(props("x", "visit www.example.org today")).toContain("link");
    expect(props("x", "no address here, just example dot com")).not.toContain("link");
  });

  it("money: a currency sign before a number, or a number before a currency word", () => {
    for (const body of [
      "only $29.99!",
      "save US$ 1,000",
      "£20 off",
      "costs €9",
      "earn 500 dollars",
      "just 50 cents",
    ])
      expect(props("x", body)).toContain("money");
    for (const body of ["call 555-1234", "version 2.5", "we made money", "100 percent"])
      expect(props("x", body)).not.toContain("money");
  });

  it("reply: a reply prefix at the start of the subject, also after [list] tags", () => {
    for (const s of ["Re: lunch", "RE: lunch", "Re[2]: lunch", "[ILUG] Re: lunch", "AW: Termin", "re:lunch"])
      expect(props(s, "")).toContain("reply");
    for (const s of ["Are you there", "Fwd: lunch", "lunch Re: later"])
      expect(props(s, "")).not.toContain("reply");
  });

  it("quote: > lines, 'wrote:' lines and Original Message separators", () => {
    expect(props("x", "hi\n> earlier text\nok")).toContain("quote");
    expect(props("x", "On Monday, Bob wrote:\nstuff")).toContain("quote");
    expect(props("x", "-----Original Message-----\nFrom: a")).toContain("quote");
    expect(props("x", "a > b is true")).not.toContain("quote");
  });

  it("unsubscribe: unsubscribe, opt out, removal from a list (across line breaks)", () => {
    expect(props("x", "To unsubscribe send a mail")).toContain("unsubscribe");
    expect(props("x", "reply to opt-out")).toContain("unsubscribe");
    expect(props("x", "To be\nremoved from this list, click")).toContain("unsubscribe");
    expect(props("x", "we removed the bug")).not.toContain("unsubscribe");
  });

  it("lists properties in option order", () => {
    expect(props("Re: deal", "> old\nonly $5 at http://a.b/ - unsubscribe here")).toEqual([
      "link",
      "money",
      "reply",
      "quote",
      "unsubscribe",
    ]);
  });
});
