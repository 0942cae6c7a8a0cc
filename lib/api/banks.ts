import { startBankConsent } from "../banking/consent-start";
import type { z } from "zod";
import { db } from "../db/client";
import { bodyTooLargeFor, readJsonBody } from "../http/body-limits";
import type { ApiKeyPrincipal } from "../keys/api-keys";
import { isLocale } from "../i18n/locales";
import { upstream } from "../upstream";
import { UpstreamError, type Aspsp, type PsuType } from "../upstream/types";
import { apiJson, invalidRequest } from "./data";
import { AuthorizationRequest, type BankWire } from "./schemas";

/**
 * The banks and connecting one, for a person's own key (docs/own-data.md):
 * `GET /api/aspsps[?country=]` lists the banks the upstream connects (its
 * bank list, kept per country), `POST /api/authorizations` starts a consent
 * at one of them for the key's own tenant and answers the bank's consent
 * address. The bank sends the browser back to /banks/callback, which stores
 * the connection for that tenant as the hosted flow does (lib/flow/banks.ts);
 * it then appears in `GET /api/connections`. lib/api/route.ts lets only
 * personal keys in.
 */

const COUNTRY = /^[A-Za-z]{2}$/;

const problem = (status: number, reason: string, detail: string) =>
  apiJson({ status, reason, detail }, status);

export function toBankWire(bank: Aspsp): BankWire {
  return {
    name: bank.name,
    country: bank.country,
    logo: bank.logo ?? null,
    bic: bank.bic,
    beta: bank.beta === true,
    psuTypes: bank.psuTypes,
  };
}

/** GET /api/aspsps: every bank, or a country's (ISO 3166-1 alpha-2, either case). */
export async function handleListBanks(request: Request): Promise<Response> {
  const params = new URL(request.url).searchParams;
  const countries = params.getAll("country").filter((value) => value !== "");
  if (countries.length > 1) return invalidRequest("country may be given once");
  const [country] = countries;
  if (country !== undefined && !COUNTRY.test(country)) {
    return invalidRequest("country must be an ISO 3166-1 alpha-2 code, e.g. DK");
  }
  const banks = await upstream().listBanks(
    country === undefined ? undefined : { country: country.toUpperCase() },
  );
  return apiJson(banks.map(toBankWire));
}

async function readAuthorizationRequest(
  request: Request,
): Promise<z.infer<typeof AuthorizationRequest> | Response> {
  const read = await readJsonBody(request);
  if (!read.ok) {
    return read.problem === "too_large"
      ? bodyTooLargeFor(request, read.limit)
      : problem(400, "invalid_request", "the body must be JSON");
  }
  const parsed = AuthorizationRequest.safeParse(read.value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join(".") : "body";
    return problem(400, "invalid_request", `${where}: ${issue?.message ?? "invalid"}`);
  }
  return parsed.data;
}

/**
 * POST /api/authorizations `{country, aspspName, psuType?}` → `{url}`: the
 * bank's consent page, to open in a browser. Without `psuType` the bank's
 * personal access is asked for, or its only kind. The consent is recorded
 * for the key's tenant (its state only as a keyed hash) and completed when
 * the bank sends the browser back; a tenant without a key to seal to (the
 * person has not set one up) is refused 409 `key_required`.
 */
export async function handleStartAuthorization(
  principal: ApiKeyPrincipal,
  request: Request,
): Promise<Response> {
  const body = await readAuthorizationRequest(request);
  if (body instanceof Response) return body;
  const country = body.country.toUpperCase();
  const aspsp = (await upstream().listBanks({ country })).find(
    (bank) => bank.name === body.aspspName,
  );
  if (!aspsp) return problem(404, "not_found", `no bank named ${body.aspspName} in ${country}`);
  const psuType: PsuType | undefined =
    body.psuType ?? (aspsp.psuTypes.includes("personal") ? "personal" : aspsp.psuTypes[0]);
  if (!psuType || !aspsp.psuTypes.includes(psuType)) {
    return problem(400, "invalid_request", `${aspsp.name} does not serve ${psuType ?? "anyone"}`);
  }
  const tenant = await db().tenant.findUniqueOrThrow({
    where: { id: principal.tenantId },
    select: { sealingKey: true, user: { select: { locale: true } } },
  });
  if (!tenant.sealingKey) {
    return problem(409, "key_required", "set up your key before connecting a bank");
  }

  try {
    const url = await startBankConsent({
      flowId: null,
      tenantId: principal.tenantId,
      aspsp,
      psuType,
      language: isLocale(tenant.user.locale) ? tenant.user.locale : "en",
      subject: principal.subject,
    });
    return apiJson({ url });
  } catch (error) {
    if (!(error instanceof UpstreamError)) throw error;
    return apiJson(
      {
        status: error.status,
        reason: error.reason,
        ...(error.bankErrorCode ? { bankErrorCode: error.bankErrorCode } : {}),
      },
      error.status,
      error.retryAfterSeconds === null ? {} : { "Retry-After": String(error.retryAfterSeconds) },
    );
  }
}
