import {
  createClient,
  listClients,
  rotateClientSecret,
  type ClientSummary,
} from "../../lib/partners/clients";
import {
  addPartnerOwner,
  createPartner,
  listPartners,
  setPartnerStatus,
  setRegisteredDomain,
  type PartnerSummary,
} from "../../lib/partners/partners";
import { normalizeEmail } from "../../lib/mail/address";
import { findLastMessage, MailError } from "../../lib/mail";
import {
  checkBankApplication,
  problemAdvice,
  type BankApplicationCheck,
} from "../../lib/upstream/application-check";
import { AUDIT_COMMANDS, operatorAudit } from "./audit-commands";
import { JANITOR_COMMANDS } from "./janitor-commands";
import { JOBS_COMMANDS } from "./jobs-commands";
import {
  optionalString,
  requireList,
  requireString,
  UsageError,
  type OptionsConfig,
  type OptionValues,
} from "./options";

/**
 * The admin CLI's commands, as data: add a command by adding a row. Each
 * returns the JSON value to print. Output keys are snake_case, like the
 * service's other external names (docs/architecture.md#names-and-the-edge).
 */

export interface Command {
  /** The words that select it, e.g. "client create". */
  name: string;
  usage: string;
  summary: string;
  /** More help, shown by `help <command>` after the summary. */
  details?: string;
  options: OptionsConfig;
  run(values: OptionValues): Promise<unknown>;
}

export const COMMANDS: readonly Command[] = [
  {
    name: "partner create",
    usage: "partner create --name <name> --owner-email <email>",
    summary: "create a partner owned by the user with that email (created if new)",
    options: { name: { type: "string" }, "owner-email": { type: "string" } },
    async run(values) {
      const partner = await createPartner(
        { name: requireString(values, "name"), ownerEmail: requireString(values, "owner-email") },
        operatorAudit(),
      );
      return toPartnerOutput(partner);
    },
  },
  {
    name: "partner list",
    usage: "partner list",
    summary: "list every partner with its owners and number of clients",
    options: {},
    async run() {
      return (await listPartners()).map(toPartnerOutput);
    },
  },
  {
    name: "partner set-domain",
    usage: "partner set-domain --partner <partner-id> (--domain <registered-domain> | --clear)",
    summary:
      'pin the registered domain the branding links must sit under (--domain "" or --clear removes it)',
    options: {
      partner: { type: "string" },
      domain: { type: "string" },
      clear: { type: "boolean" },
    },
    async run(values) {
      const partnerId = requireString(values, "partner");
      const domain = optionalString(values, "domain");
      const clear = values.clear === true;
      if (clear && domain !== undefined) {
        throw new UsageError("give either --domain or --clear, not both");
      }
      if (!clear && domain === undefined) throw new UsageError("--domain or --clear is required");
      return toPartnerOutput(await setRegisteredDomain(partnerId, clear ? null : (domain ?? null)));
    },
  },
  {
    name: "partner suspend",
    usage: "partner suspend --partner <partner-id>",
    summary: "suspend a partner: its authorizations answer temporarily_unavailable",
    options: { partner: { type: "string" } },
    async run(values) {
      const partnerId = requireString(values, "partner");
      return toPartnerOutput(await setPartnerStatus(partnerId, "suspended", operatorAudit()));
    },
  },
  {
    name: "partner resume",
    usage: "partner resume --partner <partner-id>",
    summary: "make a suspended partner active again",
    options: { partner: { type: "string" } },
    async run(values) {
      const partnerId = requireString(values, "partner");
      return toPartnerOutput(await setPartnerStatus(partnerId, "active", operatorAudit()));
    },
  },
  {
    name: "partner add-owner",
    usage: "partner add-owner --partner <partner-id> --email <email>",
    summary: "make the user with that email (created if new) an owner of the partner",
    options: { partner: { type: "string" }, email: { type: "string" } },
    async run(values) {
      const { partner, ownerEmail, added } = await addPartnerOwner(
        requireString(values, "partner"),
        requireString(values, "email"),
        operatorAudit(),
      );
      return { ...toPartnerOutput(partner), owner_email: ownerEmail, owner_added: added };
    },
  },
  {
    name: "client create",
    usage:
      "client create [--partner <partner-id>] --redirect-uri <uri> [--redirect-uri <uri> ...] [--name <name>] [--id <legacy-id>]",
    summary: "create a Connect client (a house client without --partner); prints its secret once",
    options: {
      partner: { type: "string" },
      "redirect-uri": { type: "string", multiple: true },
      name: { type: "string" },
      id: { type: "string" },
    },
    async run(values) {
      const { client, clientSecret } = await createClient(
        {
          partnerId: optionalString(values, "partner") ?? null,
          redirectUris: requireList(values, "redirect-uri"),
          name: optionalString(values, "name"),
          id: optionalString(values, "id"),
        },
        operatorAudit(),
      );
      return {
        client_id: client.id,
        client_secret: clientSecret,
        ...toClientOutput(client),
        note: "store client_secret now: it is shown only this once",
      };
    },
  },
  {
    name: "client rotate-secret",
    usage: "client rotate-secret --client <client-id>",
    summary: "issue a new secret; the previous one keeps working for 24 hours",
    options: { client: { type: "string" } },
    async run(values) {
      const clientId = requireString(values, "client");
      const rotated = await rotateClientSecret(clientId, new Date(), operatorAudit());
      return {
        client_id: rotated.clientId,
        client_secret: rotated.clientSecret,
        previous_secret_expires_at: rotated.previousSecretExpiresAt.toISOString(),
        note: "store client_secret now: it is shown only this once",
      };
    },
  },
  {
    name: "client list",
    usage: "client list --partner <partner-id>",
    summary: "list a partner's clients (never their secrets)",
    options: { partner: { type: "string" } },
    async run(values) {
      return (await listClients(requireString(values, "partner"))).map((client) => ({
        client_id: client.id,
        ...toClientOutput(client),
      }));
    },
  },
  {
    name: "mail last",
    usage: "mail last --to <email>",
    summary: "show the newest mail in the local outbox to an address, with its link and code",
    options: { to: { type: "string" } },
    async run(values) {
      const to = normalizeEmail(requireString(values, "to"));
      const message = await findLastMessage(to);
      if (!message) {
        // With RESEND_API_KEY set, mail leaves through Resend and the outbox stays empty.
        throw new MailError("not_found", `no mail to ${to} in the local outbox`);
      }
      // The outbox row as stored (sentAt included), for QA and the Playwright outbox reader.
      return { ...message, sentAt: message.sentAt.toISOString() };
    },
  },
  {
    name: "bank check",
    usage: "bank check",
    summary:
      "ask the bank aggregator whether its application is active and has {ISSUER}/banks/callback as a redirect URL",
    details:
      "With UPSTREAM=enablebanking this calls Enable Banking's GET /application. `ok` is false when a problem was found or the aggregator could not be asked; `problems` says what to do. The sandbox needs no setup.",
    options: {},
    async run() {
      return toBankCheckOutput(await checkBankApplication());
    },
  },
  ...AUDIT_COMMANDS,
  ...JOBS_COMMANDS,
  ...JANITOR_COMMANDS,
];

function toBankCheckOutput(check: BankApplicationCheck) {
  return {
    ok: check.problems.length === 0 && check.unreachable === null,
    upstream: check.upstream,
    callback_url: check.callbackUrl,
    application_active: check.active,
    registered_redirect_urls: check.redirectUrls,
    callback_registered: check.callbackRegistered,
    problems: [
      ...check.problems.map((problem) => `${problem}: ${problemAdvice(check, problem)}`),
      ...(check.unreachable
        ? [`unreachable: the aggregator did not answer (${check.unreachable})`]
        : []),
    ],
    checked_at: check.checkedAt.toISOString(),
  };
}

function toPartnerOutput(partner: PartnerSummary) {
  return {
    partner_id: partner.id,
    name: partner.name,
    status: partner.status,
    registered_domain: partner.registeredDomain,
    owner_emails: partner.ownerEmails,
    client_count: partner.clientCount,
    created_at: partner.createdAt.toISOString(),
  };
}

function toClientOutput(client: ClientSummary) {
  return {
    partner_id: client.partnerId,
    name: client.name,
    redirect_uris: client.redirectUris,
    created_at: client.createdAt.toISOString(),
    previous_secret_expires_at: client.previousSecretExpiresAt?.toISOString() ?? null,
  };
}
