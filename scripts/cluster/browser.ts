import { send, type Answer } from "./http";

/**
 * A browser as far as the hosted flow needs one: a cookie jar, the forms of
 * the last page, and the Origin of the public address on every post. It
 * follows no redirect on its own, so each step can be sent to the instance the
 * caller chooses, with the X-Forwarded-For the proxy would have added.
 */

export interface Form {
  action: string;
  fields: Record<string, string>;
}

const ENTITIES: Record<string, string> = {
  "&amp;": "&",
  "&quot;": '"',
  "&#x27;": "'",
  "&#39;": "'",
  "&lt;": "<",
  "&gt;": ">",
};
const decode = (value: string) =>
  value.replace(/&(amp|quot|#x27|#39|lt|gt);/g, (m) => ENTITIES[m] ?? m);

function attribute(tag: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return match?.[1] === undefined ? undefined : decode(match[1]);
}

/** Every `<form>` of a page with its named inputs and its submit buttons' values. */
export function formsOf(html: string): Form[] {
  const forms: Form[] = [];
  for (const match of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)) {
    const fields: Record<string, string> = {};
    for (const input of (match[2] ?? "").matchAll(/<(?:input|button)\b[^>]*>/g)) {
      const name = attribute(input[0], "name");
      if (name && !(name in fields)) fields[name] = attribute(input[0], "value") ?? "";
    }
    forms.push({ action: attribute(match[1] ?? "", "action") ?? "", fields });
  }
  return forms;
}

export function formFor(html: string, action: string): Form {
  const form = formsOf(html).find((candidate) => candidate.action.split("?")[0] === action);
  if (!form) throw new Error(`no form posting to ${action} on the page`);
  return form;
}

export class Browser {
  private readonly jar = new Map<string, string>();

  /** `issuer`: the public address the pages are served under (the proxy's). */
  constructor(
    private readonly issuer: string,
    readonly address: string,
  ) {}

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    const cookie = [...this.jar].map(([name, value]) => `${name}=${value}`).join("; ");
    return {
      Host: new URL(this.issuer).host,
      "X-Forwarded-For": this.address,
      ...(cookie && { Cookie: cookie }),
      ...extra,
    };
  }

  private keep(answer: Answer): Answer {
    for (const line of [answer.headers["set-cookie"] ?? []].flat()) {
      const pair = line.split(";")[0] ?? "";
      const at = pair.indexOf("=");
      if (at <= 0) continue;
      const name = pair.slice(0, at);
      const value = pair.slice(at + 1);
      if (value === "" || /max-age=0\b/i.test(line)) this.jar.delete(name);
      else this.jar.set(name, value);
    }
    return answer;
  }

  /** `target`: a path or an absolute URL of the public address, sent to `origin`. */
  async get(origin: string, target: string): Promise<Answer> {
    const url = new URL(target, this.issuer);
    return this.keep(
      await send(`${origin}${url.pathname}${url.search}`, { headers: this.headers() }),
    );
  }

  async post(origin: string, action: string, fields: Record<string, string>): Promise<Answer> {
    const url = new URL(action, this.issuer);
    return this.keep(
      await send(`${origin}${url.pathname}${url.search}`, {
        method: "POST",
        headers: this.headers({
          "Content-Type": "application/x-www-form-urlencoded",
          Origin: new URL(this.issuer).origin,
        }),
        body: new URLSearchParams(fields).toString(),
      }),
    );
  }
}

/** The Location of a redirect, or a failure naming what came instead. */
export function redirectOf(answer: Answer, step: string): string {
  const location = answer.headers.location;
  if (answer.status < 300 || answer.status > 399 || !location) {
    throw new Error(
      `${step}: expected a redirect, got ${answer.status} ${answer.body.slice(0, 200)}`,
    );
  }
  return location;
}
