import { findSignedInUser, signOutToken, type SignedInUser } from "../auth/sessions";
import { timingSafeEqualString } from "../crypto/constant-time";
import type { FlowStep } from "../db/generated/enums";
import { readFormBody, readJsonBody, type BodyRead } from "../http/body-limits";
import { isSameOrigin } from "../http/origin";
import { bodyKind } from "../oauth/params";
import { isStaleTabToken, isValidCsrfToken, type FlowAction } from "./csrf";
import { resumePath } from "./dead-ends";
import { findBrowserFlow } from "./flows";
import { refuseFlowPost, type ErrorBody, type FlowRefusal } from "./refusals";

/**
 * The door of every hosted-flow post (docs/architecture.md#one-door-for-flow-posts).
 * A handler states what it needs as a `FlowPostRule`; `guardFlowPost` checks
 * it, always in this order, and answers either the checked request (the flow,
 * the signed-in user, the parsed body) or the refusal from the one table in
 * ./refusals.ts. Handlers keep only their own work.
 *
 * 1. Origin: this service's own (RFC 6454), before anything is read.
 * 2. Content type: the kind the post is made with.
 * 3. The browser's live flow (its cookie) and who is signed in.
 * 4. The body, read whole within the path's size limit and parsed.
 * 5. The token: the flow's CSRF token for the action (a genuine token of
 *    another flow is a stale tab, sent on rather than refused), or the
 *    session's sign-out token.
 * 6. The step: a post made at a step the flow is not at is sent to the
 *    flow's current screen.
 */
export interface FlowPostRule {
  /** How the browser posts: a plain form, a script's JSON, or either (by Content-Type). */
  body: "form" | "json" | "form-or-json";
  /** The refusal body of a refusal without a screen (./refusals.ts). */
  errors: ErrorBody;
  /**
   * `required`: refused without the browser's live flow. `optional`: read if
   * there is one (its CSRF token is then required). `ignored`: not read.
   */
  flow: "required" | "optional" | "ignored";
  /** `flow`: the flow's own signed-in user is required. `optional`: whoever is signed in. */
  user: "flow" | "optional" | "ignored";
  /** The flow's token for this action, the session's sign-out token, or none. */
  token: FlowAction | "sign-out" | null;
  /** The flow steps the post belongs to; any step when absent. */
  steps?: readonly FlowStep[];
}

export type BrowserFlow = NonNullable<Awaited<ReturnType<typeof findBrowserFlow>>>;

export type FormBody = { kind: "form"; form: URLSearchParams };
export type JsonBody = { kind: "json"; fields: Record<string, unknown> };

export interface FlowPost<R extends FlowPostRule> {
  flow: R["flow"] extends "required" ? BrowserFlow : BrowserFlow | null;
  user: R["user"] extends "flow" ? SignedInUser : SignedInUser | null;
  body: R["body"] extends "form"
    ? FormBody
    : R["body"] extends "json"
      ? JsonBody
      : FormBody | JsonBody;
  /** The handler's own refusals, from the same table and in the same shape. */
  refuse: (reason: FlowRefusal) => Response;
}

/** The kind the post is made with, or null when its Content-Type is not one the rule takes. */
function postedKind(request: Request, rule: FlowPostRule): "form" | "json" | null {
  const kind = bodyKind(request);
  if (kind === "other") return null;
  if (rule.body === "form-or-json" || rule.body === kind) return kind;
  return null;
}

async function readBody(
  request: Request,
  kind: "form" | "json",
): Promise<BodyRead<FormBody | JsonBody>> {
  if (kind === "form") {
    const read = await readFormBody(request);
    return read.ok ? { ok: true, value: { kind, form: read.value } } : read;
  }
  const read = await readJsonBody(request);
  if (!read.ok) return read;
  const value = read.value;
  // The posts' bodies are JSON objects; anything else is as malformed as broken JSON.
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, problem: "malformed" };
  }
  return { ok: true, value: { kind, fields: value as Record<string, unknown> } };
}

function presentedToken(body: FormBody | JsonBody): string | null {
  if (body.kind === "form") return body.form.get("csrf");
  return typeof body.fields.csrf === "string" ? body.fields.csrf : null;
}

/** Checks the post against its rule: the checked request, or the refusal to answer. */
export async function guardFlowPost<R extends FlowPostRule>(
  request: Request,
  rule: R,
): Promise<FlowPost<R> | Response> {
  // A rule taking either kind answers like a script unless the browser posted a form.
  let byForm = rule.body === "form" || bodyKind(request) === "form";
  let resume: string | undefined;
  let limit: number | undefined;
  const refuse = (reason: FlowRefusal) =>
    refuseFlowPost(request, reason, { byForm, errorBody: rule.errors, resume, limit });

  if (!isSameOrigin(request)) return refuse("cross_origin");
  const kind = postedKind(request, rule);
  if (!kind) return refuse("invalid_body");
  byForm = kind === "form";

  const [flow, user] = await Promise.all([
    rule.flow === "ignored" ? null : findBrowserFlow(request),
    rule.user === "ignored" ? null : findSignedInUser(request),
  ]);
  if (rule.flow === "required" && !flow) return refuse("no_flow");
  if (rule.user === "flow" && (!flow || !user || flow.userId !== user.userId)) {
    return refuse("signed_out");
  }

  const read = await readBody(request, kind);
  if (!read.ok) {
    if (read.problem === "too_large") limit = read.limit;
    return refuse(read.problem === "too_large" ? "body_too_large" : "invalid_body");
  }
  const body = read.value;

  const token = presentedToken(body);
  if (rule.token === "sign-out") {
    if (user && !timingSafeEqualString(token ?? "", signOutToken(user))) {
      return refuse("invalid_csrf");
    }
  } else if (rule.token && flow) {
    if (!isValidCsrfToken(flow, rule.token, token)) {
      return refuse(
        (await isStaleTabToken(flow, rule.token, token)) ? "stale_tab" : "invalid_csrf",
      );
    }
  } else if (rule.token && rule.flow === "optional") {
    // No live flow here, yet the form names one this service rendered: that
    // flow is over, so say so rather than act out of its context.
    if (await isStaleTabToken(null, rule.token, token)) return refuse("flow_ended");
  }

  if (rule.steps && flow && !rule.steps.includes(flow.step)) {
    resume = resumePath(flow, user?.userId ?? null);
    return refuse("wrong_step");
  }
  return { flow, user, body, refuse } as FlowPost<R>;
}
